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

#: the work one step of a background search aims at (seconds): what an
#: update batch may wait for
STEP_S = 0.0005
#: expansions of a step on a graph whose rate is not known yet
FIRST_STEP = 256


class BackgroundSearches:
    """The requests handed to the search threads and not published yet."""

    def __init__(self, queue, threads: int):
        self._queue = queue
        self._threads = threads
        self._pool = None                # made on the first request
        self._lock = threading.Lock()
        self._running = {}               # seq -> Item, handed out, not published
        self._finished = []              # Items whose search ended
        self._per_node = {}              # (graph_id, algorithm) -> seconds per expansion

    def __len__(self) -> int:
        return len(self._running)

    def hand_out(self, items) -> None:
        """Start the search of each item (resolved on the ticking thread)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._threads,
                                            thread_name_prefix="navcore-search")
        for it in items:
            with self._lock:
                self._running[it.handle.seq] = it
            if it.error is not None:          # its replan_from raised
                self._done(it)
                continue
            try:
                self._pool.submit(self._search, it)
            except RuntimeError as exc:       # the world is closing
                it.error = exc
                self._done(it)

    def collect(self) -> list:
        """The items whose search ended since the last call, in request
        order (cancelled ones left out: their handles say so)."""
        with self._lock:
            done, self._finished = self._finished, []
            for it in done:
                self._running.pop(it.handle.seq, None)
        done.sort(key=_seq)
        return [it for it in done if not it.handle._cancelled]

    def _done(self, it) -> None:
        with self._lock:
            self._finished.append(it)

    def _search(self, it) -> None:
        """One request's search, on a search thread, step by step."""
        h = it.handle
        world = self._queue.world
        search = None
        try:
            graph = world.graphs.get(h.graph_id)
            if graph is None or h._cancelled:
                return
            with graph.hold_updates():
                search = world.begin_search(h.graph_id, it.start, h.goal, h.algorithm)
            cap = h.cap
            key = (h.graph_id, h.algorithm)
            clock = time.perf_counter
            while not search.done:
                if h._cancelled or world.closed:
                    return
                rate = self._per_node.get(key)
                n = FIRST_STEP if rate is None else max(16, int(STEP_S / rate))
                if cap is not None:
                    n = min(n, cap[0] - search.expanded)
                    if n < 1:
                        break
                before = search.expanded
                t0 = clock()
                with graph.hold_updates():
                    search.step(n)
                did = search.expanded - before
                if did > 0 and search.sliced:
                    self._per_node[key] = (clock() - t0) / did
            it.set_result(search.result(cap is not None and cap[1]))
        except Exception as exc:               # the handle says so
            it.error = exc
        finally:
            if search is not None:
                search.close()                 # frees an unfinished one's memory
            self._done(it)

    def drop_graph(self, graph_id) -> list:
        """The handles of ``graph_id``'s searches (their searches stop once
        the handles are cancelled)."""
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
