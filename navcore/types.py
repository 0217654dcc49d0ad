"""Value types that cross the hook boundary: requests, results, updates."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class PathStatus(str, enum.Enum):
    """Outcome of a path query. Unreachable is a status, not an exception."""

    FOUND = "found"
    UNREACHABLE = "unreachable"
    INVALID_START = "invalid_start"
    INVALID_GOAL = "invalid_goal"
    CANCELLED = "cancelled"
    BUDGET_EXCEEDED = "budget_exceeded"

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


class PathResult:
    """Result of a path query.

    ``nodes`` (int32) and ``points`` (float64, one row per node, or for
    backends that draw between nodes a polyline through them: a road's
    shape, a navmesh's corners) are empty unless ``status`` is ``found``;
    ``cost`` is ``inf`` then. ``expanded``
    counts the nodes the search closed (0 when no search ran).
    """

    __slots__ = ("status", "nodes", "points", "cost", "expanded", "algorithm")

    def __init__(self, status, nodes=_EMPTY_NODES, points=_EMPTY_POINTS,
                 cost=float("inf"), expanded=0, algorithm=""):
        # on every query: skip the Enum lookup when given a member already
        self.status = status if type(status) is PathStatus else PathStatus(status)
        self.nodes = nodes
        self.points = points
        self.cost = float(cost)
        self.expanded = int(expanded)
        self.algorithm = algorithm

    @classmethod
    def found_path(cls, nodes, points, cost, expanded, algorithm) -> "PathResult":
        """A ``found`` result from a backend's kernel (int32 ``nodes``,
        float64 ``points``, Python-convertible ``cost``/``expanded``):
        ``__init__`` without its checks, for the per-query path."""
        r = cls.__new__(cls)
        r.status = PathStatus.FOUND
        r.nodes = nodes
        r.points = points
        r.cost = float(cost)
        r.expanded = int(expanded)
        r.algorithm = algorithm
        return r

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
    extra: dict = field(default_factory=dict)
