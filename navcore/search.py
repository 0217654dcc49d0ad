"""Searches that run a slice at a time (``World.begin_search``).

A game that must keep its frame time runs a long search in steps of at
most ``n`` node expansions, one step a frame, as Detour's sliced queries
do (``initSlicedFindPath`` / ``updateSlicedFindPath`` /
``finalizeSlicedFindPath``)::

    >>> import navcore
    >>> world = navcore.World()
    >>> _ = world.add_graph("g", type="grid", rows=["....", ".##.", "...."])
    >>> search = world.begin_search("g", 0, 11, algorithm="astar")
    >>> steps = 1
    >>> while not search.step(2):          # two expansions a frame
    ...     steps += 1
    >>> r, whole = search.result(), world.find_path("g", 0, 11, algorithm="astar")
    >>> r.nodes.tolist() == whole.nodes.tolist(), r.expanded == whole.expanded
    (True, True)
    >>> steps, r.expanded
    (4, 8)

However it is stepped, a finished search's result equals ``find_path``'s
(the same path, cost and expansions). A search that is not finished yet
answers ``result(partial=True)`` with the path to the node it closed that
lies nearest the goal by its heuristic (status ``partial``). If its graph
changes between steps (``graph.version``), the next step begins it again.

A backend makes its searches in ``navcore_begin_search``: a subclass of
``Search`` that implements ``_begin``, ``_advance`` and, for partial
paths, ``_partial``; ``Search.whole`` wraps a backend's ``find_path`` for
searches that cannot stop midway: its first step runs it all, and raises
what ``find_path`` raises.
"""
from __future__ import annotations

import abc

from .types import GraphVersion, PathRequest, PathResult, PathStatus
from . import validate

#: ``Search.step``'s answer without a limit (sums with a count stay in int64)
UNLIMITED = 1 << 62


class Search(abc.ABC):
    """One path query advanced by ``step(n)``; see the module's text.

    ``graph`` and ``request`` are what it searches, ``version`` the graph
    version it runs on, ``expanded`` the nodes it closed so far, and
    ``sliced`` False when one step runs the whole search.
    """

    sliced = True

    def __init__(self, graph, request: PathRequest):
        self.graph = graph
        self.request = request
        self.version = graph.version
        self.expanded = 0
        self._result = None
        self._begin()

    # -- what a backend implements -------------------------------------------
    def _begin(self) -> None:
        """Set up the search on ``self.graph`` as it is now (take a slot)."""

    @abc.abstractmethod
    def _advance(self, budget: int) -> PathResult | None:
        """Close at most ``budget`` more nodes; update ``self.expanded``;
        return the result once the search is finished, else None."""

    def _partial(self) -> PathResult | None:
        """The ``partial`` result so far, or None when there is none."""
        return None

    def _release(self) -> None:
        """Give back what ``_begin`` took (finished, closed or restarted)."""

    # -- what callers use ----------------------------------------------------
    @property
    def done(self) -> bool:
        return self._result is not None

    def step(self, max_expansions: int = UNLIMITED) -> bool:
        """Close at most ``max_expansions`` (>= 1) more nodes; True once the
        search is finished (then ``result()`` is its answer)."""
        if self._result is not None:
            return True
        if not (type(max_expansions) is int and max_expansions >= 1):
            max_expansions = validate.expansions(max_expansions, "step: max_expansions")
        if self.graph.version != self.version:
            self._restart()
            if self._result is not None:
                return True
        result = self._advance(min(max_expansions, UNLIMITED))
        if result is not None:
            self._finish(result)
            return True
        return False

    def result(self, partial: bool = False) -> PathResult:
        """The answer once finished; before, ``budget_exceeded`` (no path),
        or with ``partial`` the path to the closed node nearest the goal
        (status ``partial``; ``budget_exceeded`` while there is none)."""
        if self._result is not None:
            return self._result
        if partial:
            r = self._partial()
            if r is not None:
                return self._stamped(r)
        return self._stamped(PathResult.failed(PathStatus.BUDGET_EXCEEDED,
                                               self.request.algorithm, self.expanded))

    def close(self) -> None:
        """Stop the search and free its memory; an unfinished one ends
        ``cancelled``."""
        if self._result is None:
            self._finish(PathResult.failed(PathStatus.CANCELLED, self.request.algorithm,
                                           self.expanded))

    def _finish(self, result: PathResult) -> None:
        self._result = self._stamped(result)
        self._release()

    def _stamped(self, result: PathResult) -> PathResult:
        """``result`` with the version of the graph this run of the search
        began on (``PathResult.version``, for ``World.is_current``)."""
        result.version = GraphVersion(self.graph.salt, self.version)
        return result

    def _restart(self) -> None:
        self._release()
        self.version = self.graph.version
        self.expanded = 0
        graph, req = self.graph, self.request
        if not graph.stable_node_ids:
            # the ids the ends were placed on may name other nodes now
            start, goal = graph.nodes_of(req.start, req.goal)
            req.start_node, req.goal_node = start, goal
        n = graph.num_nodes
        for node, status in ((req.start_node, PathStatus.INVALID_START),
                             (req.goal_node, PathStatus.INVALID_GOAL)):
            if not (0 <= node < n and graph.walkable[node]):
                self._result = self._stamped(PathResult.failed(status, req.algorithm))
                return
        self._begin()

    def __del__(self):
        # a search dropped unfinished gives its memory back (a search
        # whose __init__ failed has no result attribute)
        if getattr(self, "_result", True) is None:
            self._release()

    def __repr__(self) -> str:
        state = self._result.status.value if self._result is not None else "running"
        return (f"{type(self).__name__}({self.request.graph_id!r}, {self.request.start_node}"
                f" -> {self.request.goal_node}, {state}, expanded={self.expanded})")

    @staticmethod
    def finished(graph, request, result: PathResult) -> "Search":
        """A search already answered (``result``): an end not walkable, or
        a pre-check that knows the answer without searching."""
        return _Answered(graph, request, result)

    @staticmethod
    def whole(world, graph, request) -> "Search":
        """A search that ``find_path`` runs whole in its first step: for a
        backend's queries that cannot stop midway."""
        s = _Whole(graph, request)
        s._solve = world._solve
        return s


def take_slot(graph, key: str, fits, make):
    """``(pool, slot)``: a free slot from ``graph``'s pool ``key`` (this
    thread's list of them) for which ``fits(slot)`` holds, else ``make()``;
    slots that no longer fit (the graph grew) are dropped. A search gives
    its slot back with ``give_back(pool, slot, most)``."""
    pool = graph.scratch(key, _new_pool)
    while pool and not fits(pool[-1]):
        pool.pop()
    return pool, (pool.pop() if pool else make())


def give_back(pool: list, slot, most: int) -> None:
    """Keep ``slot`` in ``pool`` for a later search, up to ``most`` slots
    (its next search resets what it holds)."""
    if slot is not None and len(pool) < most:
        pool.append(slot)


def _new_pool(graph) -> list:
    return []


class _Whole(Search):
    sliced = False

    def _advance(self, budget):
        result = self._solve(self.graph, self.request)
        self.expanded = result.expanded
        return result


class _Answered(Search):
    sliced = False

    def __init__(self, graph, request, result):
        super().__init__(graph, request)
        self.expanded = result.expanded
        self._result = self._stamped(result)

    def _advance(self, budget):
        return self._result          # answered from the start: step never asks
