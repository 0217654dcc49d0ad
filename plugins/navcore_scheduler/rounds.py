"""One round of a frame's path searches, in batches, on several threads.

The ticking thread resolves each request of the round (``replan_from``,
points to nodes, walkable checks: ``World.prepare_path``), then groups the
searches by graph and algorithm. A group on a graph whose query plugins
all answer batches (``navcore_find_paths``; see ``batchable``) is one
``navcore.PathBatch``. With workers, the batch of a group with enough
work (``MIN_PARALLEL_S``) says ``threads=workers`` and the hook runs on
the ticking thread: the grid answers it with ONE parallel nogil kernel
call whose threads take the searches one by one with no Python in between
(handing chunks to Python worker threads cost a wake-up and GIL
hand-overs per chunk, more than a typical frame's searches; see
BENCHMARKS.md). Entries the hook left open or deferred, and groups on
graphs that cannot be batched, are served one request at a time through
``navcore_find_path`` (``World.solve``), as ``World.find_path`` would,
split into chunks of about equal work for the worker threads
(``chunk_plan``; the ticking thread takes chunks too). Every search is a
function of the graph and the request alone, so how the round is split
between threads never changes a result.
"""
from __future__ import annotations

import itertools
import time

import numpy as np

from navcore.validate import is_int
from navcore.types import PathBatch, PathRequest, PathStatus

#: ``PathBatch.state`` of an entry answered ``found``
_FOUND = tuple(PathStatus).index(PathStatus.FOUND)

#: a chunk of a batch is expected to search for at least this long (seconds):
#: each chunk costs its thread a few tens of microseconds of Python and a
#: hand-over of the GIL, which with chunks of ~0.1 ms ate all the gain of a
#: second thread (battlefield, 2026-11-25); below twice this a round is not
#: split at all
MIN_CHUNK_S = 0.0005
#: a group's batch is offered to several threads (``PathBatch.threads``)
#: when its searches are expected to take at least this long (seconds) on
#: one thread: a parallel kernel call costs ~20 us more than a sequential
#: one (brc202d, JPS: 5 searches of ~6 us 0.60x, 40 of ~2 us 1.0x, 40 of
#: ~80 us 1.8x, 2026-11-25)
MIN_PARALLEL_S = 0.0001


class Item:
    """One request of a round: where its search started and its outcome:
    ``result``, or ``lazy`` (``[batch, entry, None]``: the answer of a
    ``PathBatch`` entry, made into a ``PathResult`` when a handle's result
    is first read; most frames' results are read after the tick, if at
    all), or ``error``. ``expanded`` and ``found`` say what the search
    did without a ``PathResult``."""

    __slots__ = ("handle", "start", "request", "due", "result", "lazy", "error",
                 "expanded", "found")

    def __init__(self, handle, start):
        self.handle = handle
        self.start = start
        self.request = None      # the resolved PathRequest, if made (see _Chunk.solve)
        self.due = False         # a search is due (resolved, ends walkable)
        self.result = None
        self.lazy = None
        self.error = None
        self.expanded = 0
        self.found = False

    def set_result(self, result) -> None:
        self.result = result
        self.expanded = result.expanded
        self.found = result.status is PathStatus.FOUND


class _Chunk:
    """Items ``items`` of one group: one PathBatch (``batch``) or, when
    the graph cannot be batched, one request at a time."""

    __slots__ = ("graph", "gid", "algorithm", "starts", "goals", "items", "batch", "seconds")

    def __init__(self, graph, gid, algorithm, starts, goals, items, batch):
        self.graph = graph
        self.gid = gid
        self.algorithm = algorithm
        self.starts = starts
        self.goals = goals
        self.items = items
        self.batch = batch
        self.seconds = 0.0

    def run_batch(self, world) -> list:
        """The hook on the whole batch; returns the positions of the items
        it left to be served one at a time (all when it failed)."""
        try:
            world.plugins.hook.navcore_find_paths(world=world, graph=self.graph,
                                                  batch=self.batch)
            return np.flatnonzero(self.batch.state < 0).tolist()
        except Exception:          # a failing batch: each request on its own
            self.batch = None
            return list(range(len(self.items)))

    def run(self, world) -> None:
        left = range(len(self.items)) if self.batch is None else self.run_batch(world)
        self.solve(world, left)

    def solve(self, world, left) -> None:
        for j in left:
            it = self.items[j]
            req = it.request
            if req is None:           # as World.prepare_path would have made it
                req = PathRequest(self.gid, it.start, it.handle.goal, self.algorithm,
                                  int(self.starts[j]), int(self.goals[j]), {})
            try:
                it.set_result(world.solve(self.graph, req))
            except Exception as exc:    # the handle says so
                it.error = exc

    def collect(self) -> None:
        """Point the items the batch answered at their entries (on the
        thread that ran the chunk: each item belongs to one chunk); their
        ``PathResult``s are made when read."""
        b = self.batch
        if b is None:
            return
        state, items = b.state, self.items
        expanded = b.expanded.tolist()
        found = (state == _FOUND).tolist()
        for i in np.flatnonzero(state >= 0).tolist():
            it = items[i]
            it.lazy = [b, i, None]
            it.expanded = expanded[i]
            it.found = found[i]


def chunk_plan(n: int, threads: int, per: float | None, least_s: float = MIN_CHUNK_S,
               weight=None) -> list:
    """Index arrays (int64, ascending) that split a group of ``n``
    searches into chunks for ``threads`` threads, when a search is
    expected to take ``per`` seconds (``None``: not known yet).

    One chunk when there is one thread or less than twice ``least_s`` of
    work; else between ``threads`` and ``4 * threads`` chunks of about
    ``2 * least_s`` each (few: every chunk costs its thread tens of
    microseconds of Python with the GIL held, which in a round of a
    millisecond or two ate the second thread's gain). The searches are
    dealt out like cards, heaviest first by ``weight`` (the straight-line
    length of each search; ``None`` or NaN: all alike), in snake order,
    so the chunks hold about the same work and the threads end together
    without the many small tail chunks a split into runs of the queue
    needs (neighbours in the queue are alike: one crowd's requests).
    ``least_s`` 0: every search a chunk of its own."""
    if threads <= 1 or n < 2:
        return [np.arange(n)]
    if least_s <= 0:
        return [np.array([i]) for i in range(n)]
    if per is None:
        count = threads
    else:
        work = n * per
        if work < 2 * least_s:
            return [np.arange(n)]
        count = min(max(int(work // (2 * least_s)), threads), 4 * threads)
    count = min(count, n)
    order = np.arange(n)
    if weight is not None:
        weight = np.asarray(weight, dtype=np.float64)
        if weight.shape == (n,) and np.isfinite(weight).all():
            order = np.argsort(-weight, kind="stable")
    rank = np.arange(n)
    col = rank % count
    deal = np.where((rank // count) % 2 == 0, col, count - 1 - col)
    return [np.sort(order[deal == c]) for c in range(count)]


def _lengths(graph, starts, goals):
    """Straight-line length of each search (its expected work), or ``None``
    when the graph's nodes have no positions."""
    try:
        a, b = graph.points_of(starts), graph.points_of(goals)
    except Exception:              # a graph without geometry: all alike
        return None
    d = np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])
    return d if np.isfinite(d).all() else None


def _nodes_given(items):
    """``PathBatch.nodes_given`` of ``items``, made when a backend asks:
    True where the request's start (as searched: a re-plan's is where the
    agent stands) and goal are node ids."""
    def given():
        return np.fromiter((_node(it.start) and _node(it.handle.goal) for it in items),
                           dtype=bool, count=len(items))
    return given


def _node(end) -> bool:
    # a plain int costs one type check; is_int takes about 1 us
    return type(end) is int or is_int(end)


def batchable(world, graph, cache: dict) -> bool:
    """Whether ``graph``'s requests may be answered in batches: every
    plugin whose ``navcore_find_path`` serves this graph also implements
    ``navcore_find_paths`` (so no per-request answer is bypassed), and no
    find_path wrapper or path post-processor is registered."""
    key = (type(graph), world.plugins.version)
    got = cache.get(key)
    if got is None:
        plugins = world.plugins
        got = not plugins.hook.navcore_postprocess_path.get_hookimpls() and \
            plugins.covers("navcore_find_path", "navcore_find_paths", type(graph))
        if len(cache) > 64:
            cache.clear()
        cache[key] = got
    return got


def run_round(world, jobs, items, cache: dict, per: dict,
              least_s: float = MIN_CHUNK_S) -> dict:
    """Search every item of ``items`` that has a ``request`` (others have
    their result or error already); see ``run_groups``."""
    groups: dict = {}
    for it in items:
        if it.request is not None:
            it.due = True
            r = it.request
            groups.setdefault((r.graph_id, r.algorithm), []).append(it)
    return run_groups(world, jobs, [
        (gid, algorithm, members,
         np.fromiter((it.request.start_node for it in members), np.int32, len(members)),
         np.fromiter((it.request.goal_node for it in members), np.int32, len(members)))
        for (gid, algorithm), members in groups.items()], cache, per, least_s)


def run_groups(world, jobs, groups, cache: dict, per: dict,
               least_s: float = MIN_CHUNK_S) -> dict:
    """Search the round's ``groups``: ``(graph_id, algorithm, items,
    starts, goals)`` with the items' int32 start and goal nodes (resolved,
    walkable: ``World.prepare_paths``); fill in the items' outcome
    (``lazy``/``result``/``error``). ``per``:
    the seconds a search on each graph is expected to take (chunk sizes).
    With workers a batchable group with at least ``MIN_PARALLEL_S`` of
    expected work is one batch offered to ``workers`` threads, run on
    this thread; the requests left one at a time go out in chunks, and
    the thread that calls this takes chunks too (it would only wait):
    ``workers`` threads search in all. ``least_s``: the least work of a
    chunk (``MIN_CHUNK_S``); 0 offers every batch to the threads, makes
    each single request a chunk and hands every chunk to the worker
    threads. Returns ``{graph_id: [(searches, thread seconds) per
    chunk]}`` for the time estimates."""
    workers = jobs.workers
    chunks, done = [], []
    clock = time.perf_counter
    for gid, algorithm, members, starts, goals in groups:
        graph = world.graph(gid)
        ok = batchable(world, graph, cache)
        if ok and workers > 1 and len(members) > 1:
            # the whole group in one batch, on this thread, offered to the
            # workers' count of threads when it is worth a parallel call
            p = per.get(gid)
            threads = workers if (least_s <= 0 or p is None
                                  or p * len(members) >= MIN_PARALLEL_S) else 1
            c = _Chunk(graph, gid, algorithm, starts, goals, members,
                       PathBatch(gid, algorithm, starts, goals, threads, graph.stamp(),
                                 _nodes_given(members)))
            t0 = clock()
            left = c.run_batch(world)
            c.seconds = (clock() - t0) * threads
            c.collect()
            if len(left) < len(members):        # timing: the searched ones
                done.append((gid, len(members) - len(left), c.seconds))
            if left:
                members = [members[j] for j in left]
                starts, goals = starts[left], goals[left]
            else:
                continue
            ok = False
        weight = _lengths(graph, starts, goals) if workers > 1 and len(members) > 1 \
            else None
        for idx in chunk_plan(len(members), workers, per.get(gid), least_s, weight):
            if len(idx) == len(members):
                part, s, t = members, starts, goals
            else:
                part, s, t = [members[i] for i in idx.tolist()], starts[idx], goals[idx]
            chunks.append(_Chunk(graph, gid, algorithm, s, t, part,
                                 PathBatch(gid, algorithm, s, t, 1, graph.stamp(),
                                           _nodes_given(part))
                                 if ok else None))
    counter = itertools.count()

    def work():
        while True:
            k = next(counter)         # atomic under the GIL
            if k >= len(chunks):
                return
            c = chunks[k]
            t0 = clock()
            c.run(world)
            c.seconds = clock() - t0
            # the chunk's PathResults are made by the thread that searched
            # it, while the other threads still search (not after the round)
            c.collect()

    if not chunks:
        pass                          # all answered by the batches
    elif workers and least_s <= 0:
        jobs.run_on_workers(work, min(workers, len(chunks)))
    elif workers and len(chunks) > 1:
        jobs.run_on_workers(work, min(workers, len(chunks)) - 1, here=True)
    else:
        work()
    timing: dict = {}
    for gid, n, seconds in done:
        timing.setdefault(gid, []).append((n, seconds))
    for c in chunks:
        timing.setdefault(c.gid, []).append((len(c.items), c.seconds))
    return timing
