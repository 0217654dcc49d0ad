"""Path requests served by ``World.tick`` within the frame budget.

``world.request_path`` queues a request and returns a ``PathHandle`` at
once. Each tick serves queued requests oldest first until the frame budget
is spent (``World.frame_budget_ms``, or ``tick(dt, budget_ms=...)``,
counted from the start of the tick, so applying updates spends it too);
the rest wait for the next tick, so none starves. At least one request is
served per tick even when the updates used up the budget. Searches run on the worker
pool when the world has workers; results are published and callbacks run
on the thread that calls ``tick``, in request order, so ``workers=0`` and
``workers=N`` give identical results.

A request made with ``repath=True`` stays active after it is served: when
an update touches a node of its path (or its start or goal, if one was not
walkable), it is queued again, and its result is replaced when the new
search is done (``unreachable`` if the goal was cut off). An unreachable
one is queued again when the graph's areas change (a door that reopens;
this needs the hierarchy plugin). A path that merely became longer than a
new shortcut is not re-planned: only updates that touch it count.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections import deque

import numpy as np

from navcore.errors import QueryError
from navcore.types import PathStatus


class PathHandle:
    """What ``World.request_path`` returns.

    ``done`` is true once a result exists; ``result()`` returns the newest
    ``PathResult`` (``QueryError`` before the first one); ``cancel()``
    withdraws the request (and its future re-plans); ``await handle``
    waits for the first result inside an asyncio loop that calls ``tick``.
    ``repaths`` counts the times the request was planned again.
    """

    __slots__ = ("graph_id", "start", "goal", "algorithm", "callback", "repath",
                 "seq", "repaths", "_result", "_error", "_queued", "_cancelled",
                 "_served", "_waiters", "_queue")

    def __init__(self, queue, seq, graph_id, start, goal, algorithm, callback, repath):
        self._queue = queue
        self.seq = seq
        self.graph_id = graph_id
        self.start = start
        self.goal = goal
        self.algorithm = algorithm
        self.callback = callback
        self.repath = bool(repath)
        self.repaths = 0
        self._result = None
        self._error = None
        self._queued = False
        self._cancelled = False
        self._served = 0
        self._waiters = []

    @property
    def done(self) -> bool:
        return self._result is not None or self._error is not None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def result(self):
        if self._error is not None:
            raise self._error
        if self._result is None:
            state = "cancelled" if self._cancelled else "waiting to be served"
            raise QueryError(f"path request {self.seq} on graph {self.graph_id!r} is "
                             f"{state}; call world.tick() until handle.done")
        return self._result

    def cancel(self) -> None:
        self._cancelled = True
        self._queue._forget(self)

    def __await__(self):
        if not self.done:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            yield from fut.__await__()
        return self.result()

    def __repr__(self) -> str:
        state = ("cancelled" if self._cancelled else
                 self._result.status.value if self._result is not None else "queued")
        return f"<PathHandle {self.seq} {self.graph_id!r} {state} repaths={self.repaths}>"


class RequestQueue:
    """The scheduler's per-world request service (``world.scheduler``'s
    ``requests``)."""

    def __init__(self, world, jobs):
        self.world = world
        self.jobs = jobs
        self._pending = deque()          # handles, oldest first
        self._active = {}                # graph_id -> {seq: handle} (repath=True)
        self._lock = threading.Lock()
        self._seq = 0

    # -- requests -------------------------------------------------------------
    def request(self, graph_id, start, goal, algorithm, callback, repath) -> PathHandle:
        self.world.graph(graph_id)        # unknown graph: fail now, queue nothing
        if callback is not None and not callable(callback):
            raise QueryError(f"callback must be callable, got {callback!r}")
        self._seq += 1
        h = PathHandle(self, self._seq, graph_id, start, goal, algorithm, callback, repath)
        self._enqueue(h)
        return h

    def _enqueue(self, h) -> None:
        if not h._queued and not h._cancelled:
            h._queued = True
            self._pending.append(h)

    def _forget(self, h) -> None:
        active = self._active.get(h.graph_id)
        if active is not None:
            active.pop(h.seq, None)

    @property
    def waiting(self) -> int:
        return sum(1 for h in self._pending if not h._cancelled)

    # -- serving ----------------------------------------------------------------
    def serve(self, deadline: float) -> int:
        """Serve queued requests until ``deadline`` (perf_counter seconds);
        return how many were served."""
        if not self._pending:
            return 0
        served = []
        find_path = self.world.find_path
        pending, lock = self._pending, self._lock

        free_pass = [True]    # one request per tick even past the deadline,
                              # so updates that eat the budget cannot starve requests

        def drain():
            while True:
                late = time.perf_counter() >= deadline
                with lock:
                    if not pending or (late and not free_pass[0]):
                        return
                    free_pass[0] = False
                    h = pending.popleft()
                if h._cancelled:
                    continue
                try:
                    r, e = find_path(h.graph_id, h.start, h.goal, algorithm=h.algorithm), None
                except Exception as exc:         # bad start/goal etc.: the handle says so
                    r, e = None, exc
                with lock:
                    served.append((h.seq, h, r, e))

        self.jobs.run_on_workers(drain)
        served.sort(key=lambda item: item[0])    # publish in request order
        for _, h, r, e in served:
            self._publish(h, r, e)
        return len(served)

    def _publish(self, h, result, error) -> None:
        h._queued = False
        if h._served:
            h.repaths += 1
        h._served += 1
        h._result, h._error = result, error
        if h.repath and error is None and not h._cancelled:
            self._active.setdefault(h.graph_id, {})[h.seq] = h
        for fut in h._waiters:
            if not fut.done():
                fut.get_loop().call_soon_threadsafe(_set_result, fut)
        h._waiters.clear()
        if h.callback is not None:
            h.callback(h)

    # -- invalidation -----------------------------------------------------------
    def graph_updated(self, graph_id, graph, dirty) -> None:
        """Queue again the active requests whose path crosses a dirty node,
        or whose start or goal was not walkable and is dirty now. One
        vectorised lookup over all active paths, not one per request."""
        active = self._active.get(graph_id)
        if not active or len(dirty) == 0:
            return
        mask = np.zeros(graph.num_nodes, dtype=bool)
        mask[dirty] = True
        found, paths = [], []
        for h in list(active.values()):
            r = h._result
            if r.status is PathStatus.FOUND:
                found.append(h)
                paths.append(r.nodes)
            elif r.status is not PathStatus.UNREACHABLE:   # invalid start or goal
                ends = [graph.node_of(h.start), graph.node_of(h.goal)]
                if any(0 <= n and mask[n] for n in ends):
                    self._enqueue(h)
        if found:
            owner = np.repeat(np.arange(len(found)), [len(p) for p in paths])
            for i in np.unique(owner[mask[np.concatenate(paths)]]):
                self._enqueue(found[i])

    def areas_changed(self, graph_id) -> None:
        """Areas merged or split: a request that found no path may have one
        now (a door reopened). Found paths are checked by ``graph_updated``."""
        for h in list(self._active.get(graph_id, {}).values()):
            if h._result.status is PathStatus.UNREACHABLE:
                self._enqueue(h)

    def graph_removed(self, graph_id) -> None:
        self._active.pop(graph_id, None)


def _set_result(fut):
    if not fut.done():
        fut.set_result(None)
