"""Path requests searched on threads of their own across frames
(``World(background=True)``).

In a background world no frame waits for a search. Each ``tick`` hands
the requests queued since the last one to the search threads (after
resolving their starts on the ticking thread: ``replan_from``), and
publishes the requests that finished since the last tick, in request
order, with their callbacks, as a foreground tick does. A request takes
as many frames as its search takes time; the frames' own work (updates,
observers, the game) goes on meanwhile.

A search runs in steps (``navcore.Search.step``) of about ``STEP_S`` of
work, each inside the graph's ``hold_updates``: an update batch that
``tick`` applies waits for the step under way (not for the search), and
the next step of a search whose graph changed begins it again on the new
graph, so no result comes from a graph version its search did not start
on. A search that cannot stop midway (``Search.sliced`` False) holds
updates off for its whole length. A cancelled request, or one whose
graph was removed, stops at its next step.

The search threads are the world's ``workers`` count, apart from the
worker pool that applies update batches and runs jobs, so a long search
never queues a frame's jobs behind it.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from navcore.errors import UnknownGraphError

#: the work one step of a background search aims at (seconds): what an
#: update batch may wait for
STEP_S = 0.0005
#: expansions of a step on a graph whose rate is not known yet (and the
#: steps long enough to measure the rate on their own)
FIRST_STEP = 256
#: times a request whose result an update overtook is searched again
RERUNS = 2

#: set as the interpreter exits (before it waits for the search threads):
#: searches under way stop at their next step rather than run to the end
_EXITING = False


def _exiting() -> None:
    global _EXITING
    _EXITING = True


# threading's exit hooks run before the interpreter joins worker threads
# (concurrent.futures uses the same); atexit would run after
getattr(threading, "_register_atexit", lambda fn: None)(_exiting)


class BackgroundSearches:
    """The requests handed to the search threads and not published yet."""

    def __init__(self, queue, threads: int):
        self._queue = queue
        self._threads = threads
        self._pool = None                # made on the first request
        self._lock = threading.Lock()
        self._running = {}               # seq -> Item, handed out, not published
        self._finished = []              # Items whose search ended
        self._reruns = {}                # seq -> searches run again (stale results)
        self._per_node = {}              # (graph_id, algorithm) -> seconds per expansion

    def __len__(self) -> int:
        return len(self._running)

    def expect(self, items) -> None:
        """Count ``items`` as under way from now (``hand_out`` follows)."""
        with self._lock:
            for it in items:
                self._running[it.handle.seq] = it

    def hand_out(self, items) -> None:
        """Start the search of each item (resolved on the ticking thread,
        counted by ``expect``)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._threads,
                                            thread_name_prefix="navcore-search")
        for it in items:
            if it.error is not None:          # its replan_from raised
                self._done(it)
                continue
            try:
                self._pool.submit(self._search, it)
            except RuntimeError as exc:       # the interpreter is exiting
                it.error = exc
                self._done(it)

    def collect(self) -> list:
        """``(items, stale)``: the items whose search ended since the last
        call, in request order, to publish now, and those of them whose
        result an update has overtaken (``World.is_current``). Cancelled
        ones are left out (their handles say so). An overtaken one is
        searched again instead, up to ``RERUNS`` times, so a map that
        changes every frame cannot hold a request back for good; after
        that it is published as it is (the caller queues a ``repath``
        request again at once)."""
        with self._lock:
            done, self._finished = self._finished, []
        done.sort(key=_seq)
        out, again, stale = [], [], []
        is_current = self._queue.world.is_current
        for it in done:
            h = it.handle
            if h._cancelled:
                self._forget(h.seq)
                continue
            r = it.result
            if it.error is None and r is not None and not is_current(r):
                n = self._reruns.get(h.seq, 0)
                if n < RERUNS:
                    self._reruns[h.seq] = n + 1
                    fresh = type(it)(h, it.start)
                    with self._lock:
                        self._running[h.seq] = fresh
                    again.append(fresh)
                    continue
                stale.append(it)
            self._forget(h.seq)
            out.append(it)
        if again:
            self.hand_out(again)
        return out, stale

    def _forget(self, seq) -> None:
        with self._lock:
            self._running.pop(seq, None)
        self._reruns.pop(seq, None)

    def _done(self, it) -> None:
        with self._lock:
            self._finished.append(it)

    def _search(self, it) -> None:
        """One request's search, on a search thread, step by step; the
        item always ends in ``_finished`` (with a result, an error, or
        neither for a cancelled request)."""
        try:
            self._run(it)
        except BaseException as exc:          # the handle says so, whatever it is
            it.error = exc
        finally:
            self._done(it)

    def _run(self, it) -> None:
        h = it.handle
        world = self._queue.world
        graph = world.graphs.get(h.graph_id)
        if h._cancelled or _EXITING:
            return
        if graph is None:                     # removed meanwhile: cancelled next
            raise UnknownGraphError(f"graph {h.graph_id!r} was removed before the "
                                    f"search of path request {h.seq} began")
        with graph.hold_updates():
            search = world.begin_search(h.graph_id, it.start, h.goal, h.algorithm,
                                        **h.options)
        try:
            cap = h.cap
            key = (h.graph_id, h.algorithm)
            clock = time.perf_counter
            while not search.done:
                if h._cancelled or world.closed or _EXITING:
                    return
                rate = self._per_node.get(key)
                n = FIRST_STEP if rate is None else max(16, int(STEP_S / rate))
                if cap is not None:
                    n = min(n, cap[0] - search.expanded)
                    if n < 1:
                        break
                before = search.expanded
                with graph.hold_updates():
                    t0 = clock()
                    search.step(n)
                    seconds = clock() - t0
                did = search.expanded - before
                if did > 0 and search.sliced:
                    old = self._per_node.get(key)
                    rate = seconds / did
                    self._per_node[key] = rate if old is None or did >= FIRST_STEP else \
                        old + (rate - old) / 4.0
            it.set_result(search.result(cap is not None and cap[1]))
        finally:
            search.close()                    # frees an unfinished one's memory

    def drop_graph(self, graph_id) -> list:
        """The handles of ``graph_id``'s searches (their searches stop once
        the handles are cancelled); its step rates are forgotten."""
        for key in [k for k in self._per_node if k[0] == graph_id]:
            self._per_node.pop(key, None)
        with self._lock:
            return [it.handle for it in self._running.values()
                    if it.handle.graph_id == graph_id]

    def graph_ids(self) -> set:
        with self._lock:
            return {it.handle.graph_id for it in self._running.values()}

    def close(self) -> None:
        """Stop the search threads once their searches stopped (cancel the
        handles first: ``RequestQueue.cancel_all``)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def _seq(it) -> int:
    return it.handle.seq
