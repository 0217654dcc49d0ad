"""Value types that cross the hook boundary: requests, results, updates."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np


class PathStatus(str, enum.Enum):
    """Outcome of a path query. Unreachable is a status, not an exception."""

    FOUND = "found"
    UNREACHABLE = "unreachable"
    INVALID_START = "invalid_start"
    INVALID_GOAL = "invalid_goal"
    CANCELLED = "cancelled"
    #: the search hit its expansion cap (``max_nodes``) before it finished
    BUDGET_EXCEEDED = "budget_exceeded"
    #: the cap was hit and ``partial=True``: the path to the closed node
    #: nearest the goal by the search's heuristic
    PARTIAL = "partial"

    def __str__(self) -> str:  # print as the plain word
        return self.value


_EMPTY_NODES = np.empty(0, dtype=np.int32)
_EMPTY_NODES.flags.writeable = False
_EMPTY_POINTS = np.empty((0, 2), dtype=np.float64)
_EMPTY_POINTS.flags.writeable = False


class PathRequest:
    """One path query, as handed to ``navcore_find_path`` implementations.

    ``start`` and ``goal`` are what the caller passed; ``start_node`` and
    ``goal_node`` are the resolved node ids (``-1`` when the point lies
    outside the graph). ``options`` holds extra keyword arguments of
    ``World.find_path`` for planners that understand them.
    """

    __slots__ = ("graph_id", "start", "goal", "algorithm", "start_node",
                 "goal_node", "options")

    def __init__(self, graph_id, start, goal, algorithm="auto", start_node=-1,
                 goal_node=-1, options=None):
        self.graph_id = graph_id
        self.start = start
        self.goal = goal
        self.algorithm = algorithm
        self.start_node = start_node
        self.goal_node = goal_node
        self.options = {} if options is None else options

    def __repr__(self) -> str:
        return (f"PathRequest(graph_id={self.graph_id!r}, start={self.start!r}, "
                f"goal={self.goal!r}, algorithm={self.algorithm!r})")


class GraphVersion(NamedTuple):
    """Which graph, and which of its versions, a ``PathResult`` was
    computed on (``PathResult.version``; ``NavGraph.stamp()``)."""

    #: the graph object's salt (``NavGraph.salt``): drawn at random when the
    #: graph is made, and again for a copy or an unpickled graph, so a graph
    #: removed and added again, or a Dask worker's copy, is another graph
    salt: int
    #: ``graph.version``: the update batches applied to it before
    version: int


class PathLink(NamedTuple):
    """One off-mesh link a path takes (``PathResult.links``)."""

    #: the link's index in its graph's ``links`` (as given to ``add_graph``)
    link: int
    #: the link's ``kind`` (``"jump"``, ``"ladder"``, ...)
    kind: str
    #: index in ``PathResult.points`` of the link's start; its end follows
    point: int


class MeshPoint(NamedTuple):
    """A point on a graph's walkable surface and the node it lies on
    (``World.nearest_point``, ``World.random_point``); ``node`` ``-1`` and
    ``point`` ``None`` when there is none."""

    node: int
    #: float64 ``(2,)`` on a 2D graph, ``(3,)`` (the caller's axes) on a level
    point: Any


class SearchIntervals(NamedTuple):
    """What a search over intervals of mesh edges (Polyanya) closed, one
    row per expansion (``World.closed_nodes``): ``segments`` float64
    ``(k, 4)``, each interval ``(x0, y0, x1, y1)``, on an edge of the mesh;
    ``polygons`` int32 ``(k, 2)``, the polygon whose edge it lies on (the
    one the search came through) and the polygon beyond it, which the
    interval leads into."""

    segments: Any
    polygons: Any


@dataclass
class RaycastHit:
    """What ``World.raycast`` found walking the mesh from ``start`` toward
    ``end`` (``dtNavMeshQuery::raycast``).

    ``status``: ``found`` when the ray was cast, ``invalid_start`` when the
    start is on no walkable node (then ``hit`` is False, ``t`` NaN and the
    rest empty). ``hit``: a wall (the mesh's border, or a blocked node)
    stops the ray before ``end``. ``t``: the fraction of the way from the
    start (as placed on the mesh) to ``end`` where the wall is met, ``inf``
    when none is (Detour's ``FLT_MAX``). ``point``: where the ray stops
    (the wall point, else ``end`` as the ray reaches it), on the surface.
    ``normal``: the unit normal of the wall hit in the ground plane,
    pointing back into the walkable side (zeros when nothing is hit).
    ``nodes``: int32, the nodes the ray crossed, in order."""

    status: PathStatus
    hit: bool
    t: float
    point: Any
    normal: Any
    nodes: np.ndarray


_new = object.__new__
_FOUND = PathStatus.FOUND


class PathResult:
    """Result of a path query.

    ``nodes`` (int32) and ``points`` (float64, one row per node, or for
    backends that draw between nodes a polyline through them: a road's
    shape, a navmesh's corners) are empty unless ``status`` is ``found``;
    ``cost`` is ``inf`` then. ``expanded``
    counts the nodes the search closed (0 when no search ran).
    ``version``: the ``GraphVersion`` of the graph the query was answered
    on (set by ``World`` on every result of ``find_path``, ``solve`` and
    the scheduler's requests; ``None`` on results made elsewhere, e.g. a
    cancelled request's); ``World.is_current(result)`` tells whether the
    path still holds on its graph.

    ``links``: the off-mesh links the path takes (a level's jumps, ladders,
    doors, teleporters: ``links=`` of a ``level`` graph), in order, as
    ``PathLink(link, kind, point)`` named tuples: ``link`` the link's index
    in the graph's ``links`` list, ``kind`` its ``kind`` string, ``point``
    the index in ``points`` where the link starts (``points[point]`` is the
    link's start, ``points[point + 1]`` its end: play the animation
    there). An empty tuple, never ``None``, on every path without links
    (and on every backend without them).
    """

    __slots__ = ("status", "nodes", "points", "cost", "expanded", "algorithm", "version",
                 "_links")

    def __init__(self, status, nodes=_EMPTY_NODES, points=_EMPTY_POINTS,
                 cost=float("inf"), expanded=0, algorithm="", version=None):
        # on every query: skip the Enum lookup when given a member already
        self.status = status if type(status) is PathStatus else PathStatus(status)
        self.nodes = nodes
        self.points = points
        self.cost = float(cost)
        self.expanded = int(expanded)
        self.algorithm = algorithm
        self.version = version

    @classmethod
    def found_path(cls, nodes, points, cost, expanded, algorithm,
                   version=None) -> "PathResult":
        """A ``found`` result from a backend's kernel (int32 ``nodes``,
        float64 ``points``, Python-convertible ``cost``/``expanded``):
        ``__init__`` without its checks, for the per-query path."""
        r = _new(cls)                  # object.__new__, the enum member: module
        r.status = _FOUND              # constants (class lookups cost ~0.3 us a query)
        r.nodes = nodes
        r.points = points
        r.cost = float(cost)
        r.expanded = int(expanded)
        r.algorithm = algorithm
        r.version = version
        return r

    @property
    def links(self) -> tuple:
        # a slot left unset unless a path takes links: no store on the
        # per-query constructors (``found_path``, ``__init__``)
        try:
            return self._links
        except AttributeError:
            return ()

    @links.setter
    def links(self, value) -> None:
        self._links = tuple(value)

    @property
    def found(self) -> bool:
        return self.status is PathStatus.FOUND

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return (f"PathResult(status={self.status.value!r}, len={len(self.nodes)}, "
                f"cost={self.cost:.6g}, expanded={self.expanded}, "
                f"algorithm={self.algorithm!r})")

    @classmethod
    def failed(cls, status, algorithm="", expanded=0) -> "PathResult":
        return cls(status, expanded=expanded, algorithm=algorithm)


@dataclass(frozen=True)
class Update:
    """A validated, queued change to one graph.

    ``kind`` names the change (``"walkable"``, ``"cost"``, ...) in the
    vocabulary of the backend that built it through ``navcore_make_update``;
    ``params`` holds its normalised parameters; ``seq`` orders updates so
    the last write wins when a batch is coalesced.
    """

    graph_id: Any
    kind: str
    params: dict
    seq: int = 0


@dataclass
class FrameStats:
    """What one ``World.tick`` did. Times are in milliseconds."""

    frame: int
    dt: float
    updates_applied: int = 0
    dirty_nodes: int = 0
    requests_served: int = 0
    requests_waiting: int = 0
    time_updates_ms: float = 0.0
    time_observers_ms: float = 0.0
    time_requests_ms: float = 0.0
    time_total_ms: float = 0.0
    #: nodes the served requests' searches expanded (``PathResult.expanded``
    #: summed): what a node budget (``World(frame_budget_nodes=...)``) counts
    nodes_expanded: int = 0
    #: agents the frame's crowds moved, and the time that took
    agents_moved: int = 0
    time_move_ms: float = 0.0
    extra: dict = field(default_factory=dict)


#: ``PathBatch.state`` of an entry no implementation answered yet
OPEN = -1
#: ``PathBatch.state`` of an entry left to be served one request at a time
DEFERRED = -2
_STATUSES = tuple(PathStatus)


class PathBatch:
    """Many path queries on one graph with one ``algorithm``, answered
    together through ``navcore_find_paths`` (the scheduler hands each worker
    thread one batch, so a backend can answer it in one nogil kernel call).

    ``starts`` and ``goals`` are int32 node ids, resolved, in range and
    walkable (as ``PathRequest.start_node``/``goal_node``). Every entry is
    open until an implementation answers it (``answer``,
    ``answer_status``) or leaves it to be served one request at a time
    through ``navcore_find_path`` (``defer``); implementations look only at
    ``todo()``. Entries still open after the hook are served one by one
    too, so a plugin may answer any part of a batch.

    ``version``: the ``GraphVersion`` of the graph the batch is searched
    on (``graph.stamp()`` before the search), which its results carry.

    ``threads``: how many threads an implementation may search the batch
    on (the scheduler passes its worker count for a round's whole group,
    on the thread that calls ``tick``; the grid answers it in one parallel
    kernel call). 1: this thread only. Ignoring it is correct, just serial.

    ``nodes_given``: bool per entry, True where the request named both
    ends by node id. Where an end was a point, ``starts``/``goals`` hold
    the nodes it resolved to; a backend whose answer for a point differs
    from its answer for that node (a road's phantom ends, on the road
    itself) leaves those entries open.

    >>> import numpy as np
    >>> b = PathBatch("g", "auto", np.array([0, 5], np.int32), np.array([2, 5], np.int32))
    >>> b.answer(np.array([0]), cost=[2.0], expanded=[3], nodes=np.array([0, 1, 2], np.int32),
    ...          offsets=[0, 3], points=np.zeros((3, 2)), algorithm="astar")
    >>> b.todo().tolist(), b.result(0).nodes.tolist(), b.result(1)
    ([1], [0, 1, 2], None)
    """

    __slots__ = ("graph_id", "algorithm", "starts", "goals", "threads", "state", "expanded",
                 "version", "_parts", "_part", "_slot", "_lists", "_nodes_given")

    def __init__(self, graph_id, algorithm, starts, goals, threads: int = 1, version=None,
                 nodes_given=None):
        # nodes_given: the bool array, or a function that makes it (the
        # scheduler's: it costs a look at every request, paid only by the
        # backends that ask)
        self._nodes_given = nodes_given
        self.graph_id = graph_id
        self.threads = threads
        self.version = version
        self.algorithm = algorithm
        self.starts = starts
        self.goals = goals
        n = len(starts)
        #: per entry: ``OPEN``, ``DEFERRED`` or the answer's status (its
        #: index in ``PathStatus``)
        self.state = np.full(n, OPEN, dtype=np.int8)
        #: per entry: the nodes its search expanded (0 until answered)
        self.expanded = np.zeros(n, dtype=np.int64)
        self._parts = []
        self._part = np.full(n, -1, dtype=np.int32)
        self._slot = np.zeros(n, dtype=np.int64)
        self._lists = None          # result()'s Python copies of the above, made once

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def nodes_given(self) -> np.ndarray:
        given = self._nodes_given
        if given is None:
            given = np.ones(len(self), dtype=bool)
        elif callable(given):
            given = np.asarray(given(), dtype=bool)
        self._nodes_given = given
        return given

    def todo(self) -> np.ndarray:
        """Indices (int64, ascending) of the entries still open."""
        return np.flatnonzero(self.state == OPEN)

    def _claim(self, index, what) -> np.ndarray:
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        if index.size and ((index < 0).any() or (index >= len(self)).any()
                           or (self.state[index] != OPEN).any()):
            from .errors import PluginError
            raise PluginError(f"PathBatch.{what}: entries must be open entries of the "
                              f"batch (see todo()), got {index.tolist()[:8]}")
        return index

    def answer(self, index, cost, expanded, nodes, offsets, points, algorithm,
               point_offsets=None) -> None:
        """Answer entries ``index`` with searches: ``cost[i]`` (``inf``:
        unreachable), ``expanded[i]``, and the found paths one after
        another in ``nodes`` (int32) with ``offsets`` (``len(index) + 1``
        entries: path ``i`` is ``nodes[offsets[i]:offsets[i + 1]]``, empty
        when unreachable) and ``points`` (float64, one row per node, or
        with ``point_offsets`` path ``i``'s points are
        ``points[point_offsets[i]:point_offsets[i + 1]]``: a drawn road
        has more points than junctions).
        The batch keeps these arrays, not copies (results are made from
        them when first read): the caller must not change them after."""
        index = self._claim(index, "answer")
        cost = np.asarray(cost, dtype=np.float64)
        expanded = np.asarray(expanded, dtype=np.int64)
        offsets = np.asarray(offsets, dtype=np.int64)
        if point_offsets is not None:
            point_offsets = np.asarray(point_offsets, dtype=np.int64)
        if cost.shape != index.shape or expanded.shape != index.shape \
                or offsets.shape != (index.size + 1,) \
                or (len(points) != len(nodes) if point_offsets is None else
                    point_offsets.shape != offsets.shape or point_offsets[-1] != len(points)):
            from .errors import PluginError
            raise PluginError(f"PathBatch.answer: {index.size} entries need as many costs "
                              f"and expanded counts, {index.size + 1} offsets and one point "
                              f"per node (or {index.size + 1} point offsets ending at the "
                              f"points' count); got {cost.shape}, {expanded.shape}, "
                              f"{offsets.shape}, {len(nodes)} nodes, {len(points)} points")
        found = cost < np.inf
        self._lists = None
        if point_offsets is not None:
            points = (points, point_offsets.tolist())
        self._parts.append((cost, nodes, offsets, points, algorithm))
        self._part[index] = len(self._parts) - 1
        self._slot[index] = np.arange(index.size)
        self.state[index] = np.where(found, _STATUSES.index(PathStatus.FOUND),
                                     _STATUSES.index(PathStatus.UNREACHABLE))
        self.expanded[index] = expanded

    def answer_status(self, index, status, algorithm, expanded=0) -> None:
        """Answer entries ``index`` without a path: ``status`` (say
        ``unreachable``, known without a search), ``expanded`` nodes each.
        Not ``found``: a found path is answered with its nodes (``answer``)."""
        index = self._claim(index, "answer_status")
        status = PathStatus(status)
        if status is PathStatus.FOUND:
            from .errors import PluginError
            raise PluginError("PathBatch.answer_status: a found path needs its nodes, "
                              "cost and points; answer it with PathBatch.answer")
        self._lists = None
        self._parts.append((None, status, None, None, algorithm))
        self._part[index] = len(self._parts) - 1
        self.state[index] = _STATUSES.index(status)
        self.expanded[index] = expanded

    def defer(self, index) -> None:
        """Leave entries ``index`` to ``navcore_find_path``, one at a time
        (implementations after this one do not see them)."""
        self.state[self._claim(index, "defer")] = DEFERRED

    def results(self) -> list:
        """Every entry's ``PathResult`` (``None`` where not answered), made
        in one pass over the answers (what the scheduler publishes)."""
        out = [None] * len(self)
        expanded = self.expanded.tolist()
        found = PathResult.found_path
        version = self.version
        for p, (cost, nodes, offsets, points, algorithm) in enumerate(self._parts):
            index = np.flatnonzero(self._part == p).tolist()
            if cost is None:                   # answer_status: nodes is the status
                for i in index:
                    out[i] = PathResult(nodes, expanded=expanded[i], algorithm=algorithm,
                                        version=version)
                continue
            costs, ends = cost.tolist(), offsets.tolist()
            for i, j in zip(index, self._slot[index].tolist()):
                c, a, b = costs[j], ends[j], ends[j + 1]
                out[i] = found(nodes[a:b], _points(points, j, a, b), c, expanded[i], algorithm,
                               version) \
                    if c < np.inf else PathResult(PathStatus.UNREACHABLE, expanded=expanded[i],
                                                  algorithm=algorithm, version=version)
        return out

    def paths(self, index) -> tuple:
        """``(nodes, lengths, costs)``: the paths of entries ``index``
        (answered by ``answer`` with a path: found), one after another in
        int32 ``nodes`` (path ``k`` has ``lengths[k]`` nodes), with their
        costs; no ``PathResult`` made (the scheduler's index of
        kept-up-to-date paths takes them so; for the usual batch it
        copies them with ``one_answer`` in one kernel call)."""
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        part, slot = self._part[index], self._slot[index]
        n = index.size
        lens = np.zeros(n, dtype=np.int64)
        costs = np.full(n, np.inf)
        heads = np.zeros(n, dtype=np.int64)
        kinds = np.unique(part)
        for p in kinds.tolist():
            cost, nodes, offsets, _, _ = self._parts[p]
            if cost is None:                    # answer_status: no path
                continue
            sel = part == p
            j = slot[sel]
            heads[sel] = offsets[j]
            lens[sel] = offsets[j + 1] - offsets[j]
            costs[sel] = cost[j]
        flat = np.concatenate([np.asarray(self._parts[p][1][a:a + k])
                               for p, a, k in zip(part.tolist(), heads.tolist(),
                                                  lens.tolist()) if k]
                              or [np.empty(0, np.int32)])
        return flat.astype(np.int32, copy=False), lens, costs

    def one_answer(self):
        """``(nodes, offsets, cost, slot)`` when a single ``answer`` call
        answered every answered entry (the usual batch), else ``None``:
        entry ``i``'s path is ``nodes[offsets[slot[i]]:offsets[slot[i] +
        1]]`` costing ``cost[slot[i]]`` (for kernels that copy the paths
        out without a ``PathResult`` or a numpy call per path)."""
        if len(self._parts) != 1 or self._parts[0][0] is None:
            return None
        cost, nodes, offsets, _, _ = self._parts[0]
        return nodes, offsets, cost, self._slot

    def result(self, i: int) -> PathResult | None:
        """Entry ``i``'s ``PathResult``, or ``None`` when it was not answered.
        (The scheduler's handles make theirs so when first read: the
        batch's arrays are copied into lists once, so each call is a few
        list lookups rather than numpy scalar reads.)"""
        lists = self._lists
        if lists is None:
            lists = self._lists = (
                self._part.tolist(), self._slot.tolist(), self.expanded.tolist(),
                [None if c is None else (c.tolist(), o.tolist())
                 for c, _, o, _, _ in self._parts])
        p = lists[0][i]
        if p < 0:
            return None
        _, nodes, _, points, algorithm = self._parts[p]
        expanded = lists[2][i]
        if lists[3][p] is None:
            return PathResult(nodes, expanded=expanded, algorithm=algorithm,
                              version=self.version)
        cost, offsets = lists[3][p]
        j = lists[1][i]
        c = cost[j]
        if not c < np.inf:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded, algorithm=algorithm,
                              version=self.version)
        a, b = offsets[j], offsets[j + 1]
        return PathResult.found_path(nodes[a:b], _points(points, j, a, b), c, expanded,
                                     algorithm, self.version)


def _points(points, j, a, b):
    """Path ``j``'s points in a ``PathBatch`` answer: rows ``a:b`` (one per
    node), or by the answer's own point offsets."""
    if type(points) is tuple:
        rows, ends = points
        return rows[ends[j]:ends[j + 1]]
    return points[a:b]
