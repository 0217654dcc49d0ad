"""Path requests served by ``World.tick`` within the frame budget.

``world.request_path`` queues a request and returns a ``PathHandle`` at
once. Each tick serves queued requests oldest first within the frame budget
(``World.frame_budget_ms``, or ``tick(dt, budget_ms=...)``, counted from
the start of the tick, so applying updates spends it too); the rest wait
for the next tick. Requests are taken in rounds of as many as are
expected to end before the deadline (a search on that graph: the 90th
percentile of its last 64 chunks' time per search; while there are
fewer than 16, at most 4x their median), leaving time to publish the
results. The request at the front that is expected to take longer than
what is left, or the first on a graph (whose searches' cost is not known
yet), is stepped across frames instead (``longsearch.py``). When the budget is gone before
requests get their turn, one is served anyway if the previous tick served
none, so at least every other tick serves one and none starves.

A round is searched in batches (``rounds.py``): resolved on the ticking
thread (``replan_from``, or once per round ``replan_from.many`` for the
handles that share it; points to nodes for a graph's requests together,
``World.prepare_paths``), split per graph and algorithm
into chunks for the worker threads, each chunk one ``navcore_find_paths``
call (for grids one nogil kernel call). Results are published and
callbacks run on the thread that calls ``tick``, in request order, so
``workers=0`` and ``workers=N`` give identical results.

A node budget (``World(frame_budget_nodes=N)``, ``tick(budget_nodes=N)``)
counts the nodes the served searches expanded: requests are accepted in
queue order until the sum reaches it (the one that crosses it is served);
results a round computed past that point are dropped and their requests
wait at the front of the queue. A request expected to expand more than
the frame has left (its graph's recent searches' mean; any request on a
graph without one yet) is stepped instead (``longsearch.py``): it expands
exactly what is left and carries on in the next frames. A zero budget
serves one request a frame, whole. A deterministic world counts nodes
only (no deadline): rounds and steps are sized from the searches' past
expansions, so even the sequence of rounds, and of ``replan_from`` calls,
is the same on any machine and worker count.

A request made with ``repath=True`` stays active after it is served: when
an update breaks its path or makes it dearer (a wall across it, a corner
it may no longer cut, a higher cost; asked through ``navcore_path_costs``
for the paths the update came near), or touches its start or goal when
one was not walkable, it is queued again, and its result is replaced when
the new search is done (``unreachable`` if the goal was cut off). An unreachable
one is queued again when the graph's areas change (a door that reopens;
this needs the areas plugin). A path that merely became longer than a
new shortcut is not re-planned: only updates that touch it count.

A callback with a ``many`` attribute (the same callable for many
requests: a game's units) is not called per request: once the frame's
other callbacks ran, ``many(handles)`` is called once with the frame's
handles that share it, in request order. One that raises is logged and
raised again at the end of the tick like a callback (naming its first
request); every result is published before any callback runs, so it
loses none.

Every handle finishes, so ``await handle`` and ``handle.wait()`` always
return: with a result of its search (found, unreachable, invalid start or
goal), with the error its request raised (``result()`` raises it), or
``cancelled`` when ``cancel()`` or ``World.remove_graph`` withdrew it
before a result. A callback that raises does not stop the others: every
result of the tick is published and every callback runs, each failure is
logged (logger ``navcore``) with its request, and the first is raised
again at the end of the tick, after the frame's work is done.
"""
from __future__ import annotations

import asyncio
import logging
import itertools
import math
import operator
import threading
import time
from collections import deque

import numpy as np

from navcore import validate
from navcore.errors import QueryError
from navcore.search import UNLIMITED
from navcore.types import PathResult, PathStatus

from .active import ActivePaths, batch_paths
from .background import BackgroundSearches
from .longsearch import LEAST_STEP, LongSearches
from .rounds import MIN_CHUNK_S, Item, run_groups

#: what a request whose start or goal is not walkable gets (``_resolve_many``'s
#: ``bad`` 1 and 2), as ``World.prepare_path`` answers it
_INVALID = (PathStatus.INVALID_START, PathStatus.INVALID_GOAL)
_BY_SEQ = operator.attrgetter("handle.seq")
_EXPANDED = operator.attrgetter("expanded")
_RECENT = 64      # searches per graph the time estimate looks at
#: a search expected to take more than this share of what is left of the
#: frame is stepped rather than run whole: long searches on one graph vary
#: (1.5 to 3.7 ms corner to corner on a random 256x256 grid), so one that
#: fit by the estimate ran 0.3-0.6 ms past a 2 ms frame; a stepped one
#: stops at the deadline
WHOLE_SHARE = 0.5
_log = logging.getLogger("navcore")


def _estimate(values) -> float:
    """What the next search is expected to take: the 90th percentile of
    ``values``. While there are few (under 16), at most 4x their (lower)
    median, so a cold first search cannot keep the estimate above the
    budget while searches are quick. Later the plain percentile: capping
    it made heavy-tailed loads (long and short searches mixed) start long
    searches too late in the frame (steady-load p99 2.5 -> 3.8 ms)."""
    if not values:
        return 0.0
    v = sorted(values)
    p90 = v[min(len(v) - 1, (9 * len(v)) // 10)]
    return min(p90, 4.0 * v[(len(v) - 1) // 2]) if len(v) < 16 else p90


def _expected(values) -> tuple:
    """``(mean, high)`` of the recent search times ``values``: a round
    of many searches is expected to take their means summed, plus one
    search's spread above the mean (``high``: ``_estimate``) as the margin
    for the unlucky one. Sizing every search of a round by ``high`` left a
    third of the frame unused on loads that vary (short and long routes on
    a road hierarchy) and split it into many small rounds."""
    high = _estimate(values)
    return min(sum(values) / len(values), high), high


def _batch_by_many(batched: dict, fn, x) -> bool:
    """File ``x`` under ``fn.many`` in ``batched`` (one ``many`` call for
    all of them later); False when ``fn`` has no hashable ``many`` (then
    ``fn`` is called on its own). ``get``, not ``setdefault``, which would
    make a list per request."""
    many = getattr(fn, "many", None)
    if many is None:
        return False
    try:
        got = batched.get(many)
    except TypeError:                   # unhashable: called on its own
        return False
    if got is None:
        batched[many] = [x]
    else:
        got.append(x)
    return True


class PathHandle:
    """What ``World.request_path`` returns.

    ``done`` is true once a result exists; ``result()`` returns the newest
    ``PathResult`` (``QueryError`` before the first one); ``cancel()``
    withdraws the request (and its future re-plans): a handle without a
    result then has a ``cancelled`` one, as when its graph is removed;
    ``await handle`` waits for the first result inside an asyncio loop
    that calls ``tick``, ``wait(timeout)`` from another thread.
    ``repaths`` counts the times the request was planned again;
    ``start`` is where the latest search began (``replan_from`` moves it).
    """

    __slots__ = ("graph_id", "start", "goal", "algorithm", "callback", "repath",
                 "replan_from", "seq", "repaths", "cap", "options", "_in_queue", "_r", "_lazy", "_error", "_queued", "_cancelled",
                 "_served", "_waiters", "_queue", "_event")

    def __init__(self, queue, seq, graph_id, start, goal, algorithm, callback, repath,
                 replan_from=None, cap=None, options=None):
        self._queue = queue
        self.cap = cap                   # (max_nodes, partial), or None
        self.options = options or {}     # find_path's query options
        self._in_queue = False          # in the pending deque (not yet popped)
        self.replan_from = replan_from
        self.seq = seq
        self.graph_id = graph_id
        self.start = start
        self.goal = goal
        self.algorithm = algorithm
        self.callback = callback
        self.repath = bool(repath)
        self.repaths = 0
        self._r = None                   # the newest result, once made
        self._lazy = None                # or [PathBatch, entry, made]: made when read
        self._error = None
        self._queued = False
        self._cancelled = False
        self._served = 0
        self._waiters = []
        self._event = None               # made by wait(), set when a result exists

    @property
    def _result(self):
        """The newest ``PathResult`` (``None`` before the first), made from
        its batch's arrays on first read. Only the ticking thread writes
        ``_r``/``_lazy``, each in one assignment and in an order that never
        shows a reader neither (see ``_publish_all``); a reader caches the
        made result in the ``_lazy`` list, never in the handle, so a
        reader on another thread cannot bring back an older result."""
        r = self._r
        if r is not None:
            return r
        lazy = self._lazy
        if lazy is None:
            return self._r
        r = lazy[2]
        if r is None:
            r = lazy[2] = lazy[0].result(lazy[1])
        return r

    @_result.setter
    def _result(self, result):
        self._r = result
        self._lazy = None

    @property
    def done(self) -> bool:
        # ``_r`` read again after ``_lazy``: the ticking thread replaces a
        # lazy result by setting ``_r`` before clearing ``_lazy``, so a
        # reader between those two writes still sees one of them (and an
        # error is set before a result is cleared: see ``_publish_all``)
        return self._r is not None or self._lazy is not None or self._r is not None \
            or self._error is not None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def result(self):
        if self._error is not None:
            raise self._error
        r = self._result
        if r is None:
            state = "cancelled" if self._cancelled else "waiting to be served"
            raise QueryError(f"path request {self.seq} on graph {self.graph_id!r} is "
                             f"{state}; call world.tick() until handle.done")
        return r

    def cancel(self) -> None:
        """Withdraw the request and its re-plans; a handle that has no
        result yet finishes with a ``cancelled`` one (callbacks are not
        called for it: the caller knows). Safe from any thread."""
        if self._queue._cancel(self):
            if not self.done:
                self._result = PathResult.failed(PathStatus.CANCELLED,
                                                 self.algorithm if isinstance(
                                                     self.algorithm, str) else "")
                self._queue._wake(self)

    def wait(self, timeout: float | None = None):
        """Block until the handle is done (another thread calls ``tick``)
        and return ``result()``; ``QueryError`` after ``timeout`` seconds."""
        if not self.done:
            with self._queue._lock:
                if self._event is None:
                    self._event = threading.Event()
                if self.done:
                    self._event.set()
            if not self._event.wait(timeout):
                raise QueryError(f"path request {self.seq} on graph {self.graph_id!r} had "
                                 f"no result within {timeout} s")
        return self.result()

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
        self._active = {}                # graph_id -> {seq: handle}: repath=True, no path
        self._paths = {}                 # graph_id -> ActivePaths: repath=True, found
        self._masks = {}                 # graph_id -> reusable dirty-node mask
        self._lock = threading.Lock()
        self._seq = 0
        self._durations = {}             # graph_id -> seconds of its recent searches
        self._expanded = {}              # graph_id -> nodes its recent searches expanded
        self._batchable = {}             # (graph class, plugins version) -> bool
        self.nodes_last = 0              # nodes the last serving tick's searches expanded
        self.search_s_last = 0.0         # seconds its rounds of searches took (run_round)
        self.min_chunk_s = MIN_CHUNK_S   # least work of a chunk (Scheduler.min_chunk_ms)
        self._publish_cost = 0.0         # seconds to publish one result (running mean)
        self._served_last = 0            # requests the last serving tick served
        self._cancelled_queued = 0       # cancelled handles still in _pending
        self._callback_errors = []       # (handle, exception), raised at the frame's end
        self._long = LongSearches(self)  # requests under way as stepped searches
        # a background world's searches, on threads of their own
        self._bg = BackgroundSearches(self, world.workers) if world.background else None
        self._too_big = None             # the queue's head, when it did not fit (_take)

    # -- requests -------------------------------------------------------------
    def request(self, graph_id, start, goal, algorithm, callback, repath,
                replan_from=None, max_nodes=None, partial=False, options=None) -> PathHandle:
        # malformed input fails now and queues nothing: an unknown graph,
        # start, goal or algorithm would otherwise surface frames later, in
        # the tick that serves it. (Ends are resolved again when served: the
        # graph may change in between; a blocked end is a result, not an error.)
        options = options or {}
        if options:
            # begun and dropped: the plugin reading an option checks its value
            self.world.begin_search(graph_id, start, goal, algorithm, **options).close()
        else:
            self.world.prepare_path(graph_id, start, goal, algorithm)
        repath = validate.boolean(repath, "repath", QueryError)
        if callback is not None and not callable(callback):
            raise QueryError(f"callback must be callable, got {callback!r}")
        if replan_from is not None and not callable(replan_from):
            raise QueryError(f"replan_from must be callable, got {replan_from!r}")
        cap = None
        if max_nodes is not None or partial is not False:
            partial = validate.boolean(partial, "request_path: partial", QueryError)
            if max_nodes is None:
                raise QueryError("request_path: partial=True needs max_nodes (the "
                                 "expansions after which the partial path is returned)")
            cap = (validate.expansions(max_nodes, "request_path: max_nodes"), partial)
        elif options:
            # batches carry no options: served as a stepped search, as a
            # capped one is, whose cap it never reaches
            cap = (UNLIMITED, False)
        self._seq += 1
        h = PathHandle(self, self._seq, graph_id, start, goal, algorithm, callback, repath,
                       replan_from, cap, options)
        self._enqueue(h)
        return h

    def _enqueue(self, h) -> None:
        with self._lock:             # not between a cancel's mark and its count
            # a request made on another thread while the world closed:
            # close's cancel_all may already have run, so none would finish it
            closing = self.world.closed
            if not closing and not h._queued and not h._cancelled:
                h._queued = h._in_queue = True
                self._pending.append(h)
        if closing:
            h.cancel()

    def _cancel(self, h) -> bool:
        """Mark ``h`` cancelled (``False`` when it already was) and forget
        it. The mark and the count of cancelled handles still queued change
        under the lock the ticking thread pops the queue under: a cancel
        from another thread between its look at the mark and its count
        would leave the count one off (``waiting`` at -1)."""
        with self._lock:
            if h._cancelled:
                return False
            h._cancelled = True
            if h._in_queue:
                self._cancelled_queued += 1  # still in the queue, skipped when popped
        active = self._active.get(h.graph_id)
        if active is not None:
            active.pop(h.seq, None)
        self._drop_path(h)
        return True

    def _drop_path(self, h) -> None:
        index = self._paths.get(h.graph_id)
        if index is not None:
            index.drop(h)

    @property
    def waiting(self) -> int:
        return len(self._pending) - self._cancelled_queued + len(self._long) + \
            (len(self._bg) if self._bg is not None else 0)

    # -- serving ----------------------------------------------------------------
    def serve(self, deadline: float, budget_nodes: int | None = None) -> int:
        """Serve queued requests, oldest first, until ``deadline``
        (perf_counter seconds; ``inf``: no clock) and, with ``budget_nodes``,
        until the served searches expanded that many nodes; return how many
        were served (``nodes_last``: the nodes they expanded).

        Requests are searched in rounds (``rounds.run_round``): a round is
        as many requests from the front of the queue as the budget is
        expected to take, searched in batches on the workers, then
        accepted in queue order. Under a node budget a round's results
        after the one that spends the budget are dropped and those
        requests go back to the front of the queue, so which requests a
        frame serves depends on the queue and the searches only."""
        self.nodes_last = 0
        self.search_s_last = 0.0
        if self._bg is not None:
            return self._serve_background()
        if not self._pending and not len(self._long):
            return 0
        clock = time.perf_counter
        timed = deadline < math.inf
        par = max(self.jobs.workers, 1)
        # what a search on each graph is expected to take (see _estimate);
        # list(): a copy in one step, as close() on another thread may drop
        # a graph's entries meanwhile
        durations = list(self._durations.items())
        estimates = {gid: _expected(d) for gid, d in durations if d} if timed else {}
        means = {gid: sum(d) / len(d) for gid, d in list(self._expanded.items()) if d}
        # one request goes even past the deadline when the last tick served
        # none, so updates that eat the budget cannot starve requests; under
        # a node budget every frame serves at least one
        free_pass = self._served_last == 0 or budget_nodes is not None
        accepted = []
        # the searches carried from earlier frames go first
        spent = 0
        if len(self._long):
            least = UNLIMITED if budget_nodes == 0 else \
                LEAST_STEP if free_pass and timed else 0
            spent = self._long.step(deadline if timed else None, budget_nodes, accepted,
                                    least)
            free_pass = free_pass and not spent and not accepted
        # new requests only once no search is under way: one that is took
        # what the frame had (searches finish in request order)
        while not len(self._long) and (budget_nodes is None or spent < budget_nodes
                                       or not accepted):
            left = None if budget_nodes is None else budget_nodes - spent
            take = self._take(deadline if timed else None, estimates, par, free_pass, left,
                              means, len(accepted))
            if not take:
                h, self._too_big = self._too_big, None
                if h is None:
                    break
                # a slice of it instead; one that ended within what is left
                # of the frame leaves the rest to the next requests
                served = len(accepted)
                spent += self._begin_long(h, free_pass, deadline if timed else None,
                                          left, accepted)
                if len(self._long) or len(accepted) == served \
                        or (budget_nodes is not None and spent >= budget_nodes) \
                        or (timed and clock() >= deadline):
                    break
                free_pass = False             # the frame's one pass is used
                gid = h.graph_id              # what the search taught
                d = self._expanded.get(gid)
                if d:
                    means[gid] = sum(d) / len(d)
                if timed and self._durations.get(gid):
                    estimates[gid] = _expected(self._durations[gid])
                continue
            free_pass = False
            items, groups = self._prepare(take)
            per = {gid: _estimate(d) for gid, d in list(self._durations.items()) if d}
            t_search = clock()
            timing = run_groups(self.world, self.jobs, groups, self._batchable, per,
                                self.min_chunk_s)
            self.search_s_last += clock() - t_search
            self._learn(items, groups, timing)
            for gid in {g[0] for g in groups}:    # what the round taught
                if timed and self._durations.get(gid):
                    estimates[gid] = _expected(self._durations[gid])
                d = self._expanded.get(gid)
                if d:
                    means[gid] = sum(d) / len(d)
            cut = len(items)
            if budget_nodes is not None:
                for k, it in enumerate(items):
                    spent += it.expanded
                    if spent >= budget_nodes:
                        cut = k + 1
                        break
                self._put_back(items[cut:])
            else:
                spent += sum(map(_EXPANDED, items))
            accepted.extend(items[:cut])
            if timed and clock() >= deadline:
                break
        accepted.sort(key=_BY_SEQ)                     # publish in request order
        t0 = clock()
        self._publish_all(accepted)
        if accepted:      # what publishing (callbacks included) costs per result
            per = (clock() - t0) / len(accepted)
            self._publish_cost += (per - self._publish_cost) / 8.0
        self._served_last = len(accepted)
        self.nodes_last = spent
        return len(accepted)

    def _serve_background(self) -> int:
        """A background world's frame (``background.py``): the requests
        queued since the last frame go to the search threads, and those
        whose search ended are published, in request order."""
        items = []
        with self._lock:
            pending = self._pending
            while pending:
                h = pending.popleft()
                h._in_queue = False
                if h._cancelled:
                    h._queued = False
                    self._cancelled_queued -= 1
                    continue
                items.append(Item(h, h.start))
            self._bg.expect(items)           # still counted as waiting meanwhile
        if items:
            self._replan_starts(items)
            self._bg.hand_out(items)
        finished, stale = self._bg.collect()
        self._publish_all(finished)
        for it in stale:                     # overtaken again and again: once more
            if it.handle.repath and not it.handle._cancelled:
                self._enqueue(it.handle)
        self._served_last = len(finished)
        self.nodes_last = sum(map(_EXPANDED, finished))
        return len(finished)

    def _begin_long(self, h, free_pass, deadline, nodes_left, accepted) -> int:
        """Pop ``h`` (the queue's head, too long for what is left of the
        frame) and begin it as a stepped search (``longsearch``), stepped
        at once with what is left; returns the expansions."""
        with self._lock:
            if not self._pending or self._pending[0] is not h:
                return 0
            self._pending.popleft()
            h._in_queue = False
            if h._cancelled:        # since _take looked (another thread): counted there
                h._queued = False
                self._cancelled_queued -= 1
                return 0
        got = self._long.begin(h, free_pass)
        least = LEAST_STEP if free_pass and deadline is not None else 0
        if nodes_left == 0:     # a zero node budget serves one request a frame, whole
            least = UNLIMITED
        if got is False:                     # cannot be sliced: it waits for room
            self._put_back([Item(h, h.start)])
            return 0
        if got is not None:                  # answered without a search
            accepted.append(got)
            return got.expanded
        return self._long.step(deadline, nodes_left, accepted, least)

    def per_expansion(self, graph_id):
        """Seconds one expansion took in the graph's recent searches, or None."""
        d, n = self._durations.get(graph_id), self._expanded.get(graph_id)
        if not d or not n:
            return None
        nodes = sum(n) / len(n)
        return _estimate(d) / nodes if nodes > 0 else None

    def learn_search(self, graph_id, seconds, expanded) -> None:
        """A stepped search finished: its time and expansions count among
        the graph's recent searches, as a round's do."""
        for table, value in ((self._durations, seconds), (self._expanded, expanded)):
            recent = table.get(graph_id)
            if recent is None:
                recent = table[graph_id] = deque(maxlen=_RECENT)
            recent.append(value)

    def _take(self, deadline, estimates, par, free_pass, nodes_left, means, accepted) -> list:
        """The next round: handles popped from the front of the queue.

        With a deadline, as many as are expected to finish before it (a
        search's estimate shared among the workers, plus publishing every
        result); with a node budget, until their expected expansions (the
        mean of the graph's recent searches) reach what is left of it. A
        head that does not fit, or whose graph has no search measured yet,
        is left in ``_too_big``: ``serve`` begins it as a sliced search
        (under a zero node budget it is taken alone, whole). The rule for
        nodes uses nothing but earlier searches, so rounds are the same
        whatever the number of workers."""
        pending, take = self._pending, []
        publish = self._publish_cost
        if deadline is not None:
            room = deadline - time.perf_counter() - publish * accepted
        acc_t = acc_n = margin = 0.0
        with self._lock:
            while pending:
                h = pending[0]
                if h._cancelled:
                    gone = pending.popleft()
                    gone._queued = gone._in_queue = False
                    self._cancelled_queued -= 1
                    continue
                gid = h.graph_id
                if h.cap is not None:          # a capped search: stepped, alone
                    if not take:
                        self._too_big = h
                    break
                if deadline is not None:
                    est = estimates.get(gid)
                    # a graph without a search measured yet: its first one is
                    # stepped, so even a long one keeps the frame
                    if est is None:
                        c = tail = math.inf
                    else:
                        c = est[0] / par + publish
                        # one slow search runs on one thread: its excess
                        # over the mean is not shared among the workers
                        tail = est[1] - est[0]
                    if acc_t + c + max(margin, tail) > room or \
                            (est is not None and est[1] > WHOLE_SHARE * room):
                        if not take:           # served a slice at a time instead
                            self._too_big = h
                        break
                    acc_t += c
                    margin = max(margin, tail)
                last = False
                if nodes_left is not None:
                    m = means.get(gid)
                    if m is None or m > nodes_left:
                        # expected not to fit (or unknown: the first search on
                        # the graph): stepped with the nodes left; a zero
                        # budget serves it whole, alone
                        if take:
                            break
                        if nodes_left > 0:
                            self._too_big = h
                            break
                        last = True
                    elif take and acc_n >= nodes_left:
                        break
                    else:
                        acc_n += max(m, nodes_left / 256.0)
                pending.popleft()._in_queue = False
                take.append(h)
                if last:
                    break
        return take

    def _prepare(self, take) -> tuple:
        """Resolve the handles of a round on this thread: each one's start
        (``replan_from`` for a re-plan, see ``_replan_starts``) and nodes,
        or its immediate result (start or goal not walkable) or error.
        Returns the items and the groups to search, ``(graph_id,
        algorithm, items, starts, goals)`` (``rounds.run_groups``).
        The requests of one graph and algorithm are resolved together
        (``World.prepare_paths``' arrays: on a grid one ``locate_many`` for
        their starts and goals); when that raises, one at a time, so
        the error lands on the request that caused it."""
        items = [Item(h, h.start) for h in take]
        self._replan_starts(items)
        by: dict = {}
        for it in items:
            if it.error is None:
                h = it.handle
                key = (h.graph_id, h.algorithm)
                got = by.get(key)
                if got is None:
                    got = by[key] = ([], [], [])
                got[0].append(it)
                got[1].append(it.start)
                got[2].append(h.goal)
                it.due = True                # unless its ends are not walkable
        world, groups = self.world, []
        for (gid, algorithm), (members, starts, goals) in by.items():
            try:
                _, s, t, bad = world._resolve_many(gid, starts, goals, algorithm)
            except Exception:                # find the culprit: one at a time
                s = None
            if s is None:
                due = []
                for it in members:
                    it.due = False
                    h = it.handle
                    try:
                        _, req = world.prepare_path(gid, it.start, h.goal, algorithm)
                    except Exception as exc:     # bad start/goal etc.: the handle says so
                        it.error = exc
                        continue
                    if type(req) is PathResult:
                        it.set_result(req)
                    else:
                        it.request = req
                        it.due = True
                        due.append(it)
                if due:
                    groups.append((gid, algorithm, due,
                                   np.array([it.request.start_node for it in due], np.int32),
                                   np.array([it.request.goal_node for it in due], np.int32)))
                continue
            if bad is not None:
                stamp = world.graph(gid).stamp()
                for k in np.flatnonzero(bad).tolist():
                    members[k].due = False
                    members[k].set_result(PathResult(_INVALID[bad[k] - 1], version=stamp))
                keep = np.flatnonzero(bad == 0)
                members = [members[k] for k in keep.tolist()]
                s, t = s[keep], t[keep]
            if members:
                groups.append((gid, algorithm, members, s, t))
        return items, groups

    @staticmethod
    def _replan_starts(items) -> None:
        """Where each re-plan of the round starts: ``replan_from(handle)``,
        in request order; handles whose ``replan_from`` has a ``many``
        attribute are asked together, one ``many(handles)`` call per such
        attribute (a game's units answer a round's re-plans on arrays).
        When ``many`` raises or answers something else than one start per
        handle, each of its handles' ``replan_from`` is called instead."""
        batched: dict = {}
        for it in items:
            h = it.handle
            if not h._served or h.replan_from is None:
                continue
            if _batch_by_many(batched, h.replan_from, it):
                continue
            try:
                it.start = h.replan_from(h)
            except Exception as exc:         # the handle says so
                it.error = exc
        for many, members in batched.items():
            try:
                starts = list(many([it.handle for it in members]))
            except Exception:
                starts = None
            if starts is not None and len(starts) == len(members):
                for it, start in zip(members, starts):
                    it.start = start
                continue
            for it in members:
                try:
                    it.start = it.handle.replan_from(it.handle)
                except Exception as exc:
                    it.error = exc

    def _learn(self, items, groups, timing) -> None:
        """Keep the recent search times and expansions of each graph (in
        round order, so the node rule sees the same history on any number
        of workers)."""
        durations, expanded = self._durations, self._expanded
        for gid, chunks in timing.items():
            recent = durations.get(gid)
            if recent is None:
                recent = durations[gid] = deque(maxlen=_RECENT)
            # one sample per search, its chunk's mean: a chunk of twenty
            # weighs twenty times a chunk of one. One sample per chunk made a
            # frame's last small rounds (their fixed cost shared by few
            # searches) set the estimate, which kept the next frame's
            # rounds small too
            for n, seconds in chunks:
                recent.extend(itertools.repeat(seconds / n, n))
        gids = [g[0] for g in groups]
        if len(set(gids)) == len(gids):
            runs = [(g[0], g[2]) for g in groups]
        else:           # a graph in several groups (algorithms): in round order
            runs = [(it.handle.graph_id, (it,)) for it in items if it.due]
        for gid, members in runs:
            got = [it.expanded for it in members
                   if it.error is None and (it.lazy is not None or it.result is not None)]
            if got:
                recent = expanded.get(gid)
                if recent is None:
                    recent = expanded[gid] = deque(maxlen=_RECENT)
                recent.extend(got)

    def _put_back(self, items) -> None:
        """Requests searched past a spent node budget wait at the front
        again, in their order (their results are dropped)."""
        with self._lock:
            for it in reversed(items):
                h = it.handle
                if h._cancelled:
                    h._queued = False
                    continue
                h._in_queue = True
                self._pending.appendleft(h)

    def _publish_all(self, items) -> None:
        """Give each item's handle its result, in request order: first every
        handle of the frame (the paths kept up to date go into their
        graph's index in one ``put_many``), then the waiters and callbacks,
        so a callback sees all of the frame's results."""
        puts: dict = {}
        active = self._active
        for it in items:
            h, error, lazy = it.handle, it.error, it.lazy
            h.start = it.start
            h._queued = False
            if h._served:
                h.repaths += 1
            h._served += 1
            # one assignment each, the new one first: a reader on another
            # thread sees the old result or the new one, never none (an
            # error before the old result is cleared)
            if error is not None:
                h._error = error
            if lazy is not None:
                h._lazy = lazy
                h._r = None
            else:
                h._r = it.result
                h._lazy = None
            if error is None:
                h._error = None
            if error is not None:           # no result to keep up to date any more
                mine = active.get(h.graph_id)
                if mine:
                    mine.pop(h.seq, None)
                self._drop_path(h)
            elif h.repath and not h._cancelled:
                gid = h.graph_id
                mine = active.get(gid)
                if it.found:
                    if mine:
                        mine.pop(h.seq, None)
                    got = puts.get(gid)
                    if got is None:
                        got = puts[gid] = ([], [])
                    got[0].append(h)
                    runs = got[1]         # runs of one batch's entries, or a result
                    if lazy is None:
                        runs.append((None, it.result))
                    elif runs and runs[-1][0] is lazy[0]:
                        runs[-1][1].append(lazy[1])
                    else:
                        runs.append((lazy[0], [lazy[1]]))
                else:
                    self._drop_path(h)
                    if mine is None:
                        mine = active[gid] = {}
                    mine[h.seq] = h
        for gid, (handles, runs) in puts.items():
            index = self._paths.get(gid)
            if index is None:
                index = self._paths[gid] = ActivePaths()
            flat, lens, costs = _paths_of(runs)
            index.put_flat(handles, flat, lens, costs, self.world.graph(gid).num_nodes)
        batched: dict = {}
        for it in items:
            h = it.handle
            if h._waiters or h._event is not None:
                self._wake(h)
            callback = h.callback
            if callback is None:
                continue
            if _batch_by_many(batched, callback, h):
                continue
            try:
                callback(h)
            except Exception as exc:           # the other results must still go out
                _log.exception("the callback of path request %d on graph %r raised",
                               h.seq, h.graph_id)
                self._callback_errors.append((h, exc))
        for many, handles in batched.items():  # after the others, one call each
            try:
                many(handles)
            except Exception as exc:
                _log.exception("the callbacks' many() of %d path requests (the first: %d "
                               "on graph %r) raised", len(handles), handles[0].seq,
                               handles[0].graph_id)
                self._callback_errors.append((handles[0], exc))

    def _wake(self, h) -> None:
        """Tell whoever waits on ``h`` (awaits, ``wait``) that it is done."""
        for fut in h._waiters:
            if not fut.done():
                fut.get_loop().call_soon_threadsafe(_set_result, fut)
        h._waiters.clear()
        if h._event is not None:
            h._event.set()

    def raise_callback_errors(self) -> None:
        """At the end of a tick: raise the first callback error of the
        frame again (all were logged), naming its request."""
        if not self._callback_errors:
            return
        (h, exc), more = self._callback_errors[0], len(self._callback_errors) - 1
        self._callback_errors.clear()
        exc.add_note(f"in the callback of path request {h.seq} on graph {h.graph_id!r}"
                     + (f" ({more} more callback(s) raised this tick; see the log)"
                        if more else ""))
        raise exc

    # -- invalidation -----------------------------------------------------------
    def graph_updated(self, graph_id, graph, dirty) -> None:
        """Queue again the active requests whose path crosses a dirty node
        and now costs more (or is broken), or whose start or goal was not
        walkable and is dirty now: numpy work over the flat index of
        active paths and one ``navcore_path_costs`` call, no loop over
        requests."""
        active = self._active.get(graph_id) or {}
        index = self._paths.get(graph_id)
        if len(dirty) == 0 or (not active and not index):
            return
        # one mask per graph, cleared after use: an update must not cost a
        # full-graph allocation (4 MB a tick on a 4 M-cell map)
        mask = self._masks.get(graph_id)
        if mask is None or mask.size != graph.num_nodes:
            mask = self._masks[graph_id] = np.zeros(graph.num_nodes, dtype=bool)
        mask[dirty] = True
        try:
            self._replan_touched(graph_id, graph, dirty, mask, active, index)
        finally:
            mask[dirty] = False

    def _replan_touched(self, graph_id, graph, dirty, mask, active, index) -> None:
        for h in list(active.values()):         # few: requests without a path
            r = h._result
            if r.status is not PathStatus.FOUND and r.status is not PathStatus.UNREACHABLE:
                ends = [graph.node_of(h.start), graph.node_of(h.goal)]
                if any(0 <= n and mask[n] for n in ends):
                    self._enqueue(h)
        if not index:
            return
        handles, (nodes, starts), before = index.near(dirty, mask)
        if not handles:
            return
        # of the paths the batch came near, plan again those it broke or
        # made dearer (a wall across them, a corner they may no longer
        # cut, mud); one that merely runs past a change keeps its result
        now = self.world.plugins.hook.navcore_path_costs(
            world=self.world, graph=graph, nodes=nodes, starts=starts)
        if now is None:       # no plugin can cost paths here: plan them all again
            now = np.full(len(handles), np.inf)
        for i in np.flatnonzero(~(now <= before + 1e-9 * np.maximum(1.0, before))):
            self._enqueue(handles[i])

    def areas_changed(self, graph_id) -> None:
        """Areas merged or split: a request that found no path may have one
        now (a door reopened). Found paths are checked by ``graph_updated``."""
        for h in list(self._active.get(graph_id, {}).values()):
            if h._result.status is PathStatus.UNREACHABLE:
                self._enqueue(h)

    def cancel_all(self) -> None:
        """Cancel every request of every graph, as ``graph_removed`` does
        for one (the world is closing)."""
        with self._lock:
            # from here on _enqueue sees the world closed (World.close sets
            # it first) and cancels; a request queued before is listed here
            ids = {h.graph_id for h in list(self._pending)}
        ids.update(list(self._active))        # list(): one C-level step, no switch inside
        ids.update(list(self._paths))
        ids.update(self._long.graph_ids())
        if self._bg is not None:
            ids.update(self._bg.graph_ids())
        for graph_id in ids:
            self.graph_removed(graph_id)

    def close(self) -> None:
        """Cancel every request (``cancel_all``) and stop the background
        search threads once their searches stopped."""
        self.cancel_all()
        if self._bg is not None:
            self._bg.close()

    def graph_removed(self, graph_id) -> None:
        """The graph is gone: its requests, queued or kept up to date, are
        cancelled (a handle without a result finishes ``cancelled``)."""
        with self._lock:         # a tick on another thread pops and pushes the queue
            queued = list(self._pending)
        mine = {h.seq: h for h in queued if h.graph_id == graph_id}
        mine.update((h.seq, h) for h in self._long.drop_graph(graph_id))
        if self._bg is not None:
            mine.update((h.seq, h) for h in self._bg.drop_graph(graph_id))
        mine.update(self._active.pop(graph_id, {}))
        index = self._paths.pop(graph_id, None)
        if index is not None:
            mine.update((h.seq, h) for h in index.handles if h is not None)
        self._masks.pop(graph_id, None)
        self._durations.pop(graph_id, None)
        self._expanded.pop(graph_id, None)
        for h in mine.values():
            h.cancel()


def _paths_of(runs) -> tuple:
    """``(nodes, lengths, costs)`` of found paths given as runs of
    ``(batch, entries)`` (``PathBatch.paths``) or ``(None, result)``, in
    order, one after another."""
    if len(runs) == 1 and runs[0][0] is not None:
        return batch_paths(*runs[0])
    flat, lens, costs = [], [], []
    for batch, what in runs:
        if batch is None:
            flat.append(np.asarray(what.nodes, dtype=np.int32))
            lens.append(np.array([len(what.nodes)], dtype=np.int64))
            costs.append(np.array([what.cost]))
        else:
            f, n, c = batch_paths(batch, what)
            flat.append(f)
            lens.append(n)
            costs.append(c)
    return np.concatenate(flat), np.concatenate(lens), np.concatenate(costs)


def _set_result(fut):
    if not fut.done():
        fut.set_result(None)
