"""Searches longer than what is left of a frame, run a slice per frame.

When the request at the front of the queue is expected to take more than
the frame has left (its graph's recent searches: time, or expansions
under a node budget), the scheduler does not wait for a frame with room
nor overrun this one: it begins the request as a ``navcore.Search``
(``World.begin_search``) and steps it with as many expansions as the
frame has left, converted from time by what one expansion on that graph
has cost lately. The search is carried to the next frames, where it is
stepped first, until it finishes; its result is published then, as any
other. A stepped search ends with ``find_path``'s result, so slicing
changes when a result comes, never what it is. A search that cannot be
sliced (``Search.sliced`` False) is not begun unless the frame may
overrun anyway (the scheduler's free pass).
"""
from __future__ import annotations

import threading
import time
from collections import deque

from navcore.search import UNLIMITED

from .rounds import Item

#: what one expansion is assumed to cost (seconds) on a graph with no
#: search measured yet; the first step's own time corrects it
GUESS_S = 1e-6
#: expansions a search under way takes in a frame that has no time left
#: for it, when the last frame served nothing (so none starves)
LEAST_STEP = 256
#: expansions of one step that measure what an expansion costs on their own
SURE = 256
#: the share of what is left of the frame one step plans to use
SHARE = 1.0 / 3.0
#: time left (seconds) below which a frame takes no more steps
MIN_ROOM_S = 30e-6


class LongSearches:
    """The requests under way as stepped searches, oldest first."""

    def __init__(self, queue):
        self._queue = queue
        self._under_way = deque()        # [Item, Search, seconds stepped]
        # held while a frame steps the searches and while another thread
        # (World.close, remove_graph) drops a graph's: a search must not
        # be closed, nor the deque replaced, in the middle of a step
        self._lock = threading.RLock()
        # (graph_id, algorithm) -> seconds per expansion (running): a jump
        # point search's expansion costs ten times an A* one on one grid
        self._per_node = {}

    def __len__(self) -> int:
        return len(self._under_way)

    def begin(self, h, free_pass: bool):
        """Begin handle ``h`` (popped from the queue) as a stepped search.
        Returns its ``Item`` when it is already answered (an error, an end
        not walkable, a pre-check), ``None`` when it is under way, and
        ``False`` when it cannot be sliced and there is no ``free_pass``
        (the caller puts it back)."""
        it = Item(h, h.start)
        self._queue._replan_starts([it])
        if it.error is not None:
            return it
        try:
            search = self._queue.world.begin_search(h.graph_id, it.start, h.goal,
                                                    h.algorithm, **h.options)
        except Exception as exc:               # the handle says so
            it.error = exc
            return it
        if search.done:
            it.set_result(search.result())
            return it
        if not search.sliced and not free_pass:
            search.close()
            return False
        with self._lock:
            self._under_way.append([it, search, 0.0])
        return None

    def step(self, deadline, nodes_left, accepted, least=0) -> int:
        """Step the searches under way, oldest first, within ``deadline``
        (perf_counter seconds, or None) and ``nodes_left`` expansions (or
        None), the first at least ``least``; finished ones go to
        ``accepted``. Returns the expansions."""
        with self._lock:
            return self._step(deadline, nodes_left, accepted, least)

    def _step(self, deadline, nodes_left, accepted, least) -> int:
        spent = 0
        clock = time.perf_counter
        while self._under_way:
            entry = self._under_way[0]
            it, search = entry[0], entry[1]
            if it.handle._cancelled:
                self._under_way.popleft()
                search.close()
                continue
            gid = it.handle.graph_id
            key = (gid, it.handle.algorithm)
            if nodes_left is not None:
                budget = nodes_left - spent
            elif deadline is None:
                budget = UNLIMITED
            else:
                # a third of the time left at the rate of late, and again:
                # one expansion may cost ten times another (a jump point
                # search's scans), so the frame is filled in shrinking
                # steps, each measuring the rate anew
                room = deadline - clock()
                rate = self._per_node.get(key) or self._queue.per_expansion(gid) or GUESS_S
                budget = int(SHARE * room / rate) if room > MIN_ROOM_S else 0
            if budget < least:
                budget = least
            least = 0
            cap = it.handle.cap
            if cap is not None and budget > cap[0] - search.expanded:
                budget = cap[0] - search.expanded
            if budget < 1:
                break
            before = search.expanded
            t0 = clock()
            try:
                done = search.step(budget)
            except Exception as exc:           # a whole search's error: the handle's
                it.error = exc
                done = True
            seconds = clock() - t0
            entry[2] += seconds
            did = search.expanded - before if search.expanded >= before else search.expanded
            spent += did
            if did > 0 and search.sliced:
                # a step of many expansions measures the rate well on its
                # own; short ones are averaged in
                old = self._per_node.get(key)
                rate = seconds / did
                self._per_node[key] = rate if old is None or did >= SURE else \
                    old + (rate - old) / 4.0
            capped = cap is not None and not done and search.expanded >= cap[0]
            if not done and not capped:
                if deadline is None or nodes_left is not None:
                    break
                continue                       # the next, shorter step
            self._under_way.popleft()
            if capped:
                it.set_result(search.result(cap[1]))
                search.close()
            elif it.error is None:
                it.set_result(search.result())
                self._queue.learn_search(gid, entry[2], it.expanded)
            accepted.append(it)
        return spent

    def drop_graph(self, graph_id) -> list:
        """Forget the searches on ``graph_id``; their handles."""
        with self._lock:
            return self._drop_graph(graph_id)

    def _drop_graph(self, graph_id) -> list:
        mine = [e[0].handle for e in self._under_way if e[0].handle.graph_id == graph_id]
        for e in self._under_way:
            if e[0].handle.graph_id == graph_id:
                e[1].close()
        self._under_way = deque(e for e in self._under_way
                                if e[0].handle.graph_id != graph_id)
        for key in [k for k in self._per_node if k[0] == graph_id]:
            del self._per_node[key]
        return mine

    def graph_ids(self) -> set:
        with self._lock:
            return {e[0].handle.graph_id for e in self._under_way}
