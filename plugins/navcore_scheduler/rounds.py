"""One round of a frame's path searches, run on the worker threads in batches.

The ticking thread resolves each request of the round (``replan_from``,
points to nodes, walkable checks: ``World.prepare_path``), then groups the
searches by graph and algorithm. A group on a graph whose query plugins
all answer batches (``navcore_find_paths``; see ``batchable``) is split
into a few chunks per worker, largest first (guided scheduling: each chunk
about half of what is left per worker, so the threads finish together),
and each chunk is one ``navcore.PathBatch`` handed to the hook on a worker
thread: for grids one nogil kernel call for the whole chunk, with no
Python per request while the threads run. Entries no batch implementation
answered, and groups on graphs that cannot be batched, are served one
request at a time through ``navcore_find_path`` (``World.solve``), as
``World.find_path`` would. Every search is a function of the graph and the
request alone, so how the round is split between threads never changes a
result.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from navcore.types import PathBatch

#: a chunk of a batch is expected to search for at least this long (seconds):
#: each chunk costs its thread a few tens of microseconds of Python and a
#: hand-over of the GIL, which with chunks of ~0.1 ms ate all the gain of a
#: second thread (battlefield, 2026-11-25); below twice this a round is not
#: split at all
MIN_CHUNK_S = 0.0005


class Item:
    """One request of a round: where its search started and its outcome."""

    __slots__ = ("handle", "start", "request", "result", "error")

    def __init__(self, handle, start):
        self.handle = handle
        self.start = start
        self.request = None      # the resolved PathRequest while a search is due
        self.result = None
        self.error = None

    @property
    def expanded(self) -> int:
        return self.result.expanded if self.result is not None else 0


class _Chunk:
    """Items ``items`` of one group: one PathBatch (``batch``) or, when
    the graph cannot be batched, one request at a time."""

    __slots__ = ("graph", "items", "batch", "seconds")

    def __init__(self, graph, items, batch):
        self.graph = graph
        self.items = items
        self.batch = batch
        self.seconds = 0.0

    def run(self, world) -> None:
        left = range(len(self.items))
        if self.batch is not None:
            try:
                world.plugins.hook.navcore_find_paths(world=world, graph=self.graph,
                                                      batch=self.batch)
                left = np.flatnonzero(self.batch.state < 0).tolist()
            except Exception:          # a failing batch: each request on its own
                self.batch = None
        for j in left:
            it = self.items[j]
            try:
                it.result = world.solve(self.graph, it.request)
            except Exception as exc:    # the handle says so
                it.error = exc

    def collect(self) -> None:
        """Move the batch's answers into the items (on the ticking thread)."""
        if self.batch is None:
            return
        for it, r in zip(self.items, self.batch.results()):
            if it.result is None and it.error is None:
                it.result = r


def chunk_bounds(n: int, threads: int, per: float | None,
                 least_s: float = MIN_CHUNK_S) -> list:
    """``[(a, b), ...]`` covering ``0..n`` for ``threads`` threads when a
    search is expected to take ``per`` seconds (``None``: not known yet).
    One chunk when there is one thread or too little work to share; else
    guided sizes (half of what is left per thread, at least ``MIN_CHUNK_S``
    of work), so the last chunks are small and the threads end together
    whatever the searches cost. Without an estimate: one chunk per thread."""
    if threads <= 1 or n < 2:
        return [(0, n)]
    if least_s <= 0:                   # every search a chunk of its own
        return [(a, a + 1) for a in range(n)]
    if per is None:
        step = math.ceil(n / threads)
        return [(a, min(n, a + step)) for a in range(0, n, step)]
    if n * per < 2 * least_s:
        return [(0, n)]
    least = max(1, math.ceil(least_s / per)) if per > 0 else n
    out, a = [], 0
    while a < n:
        size = max(least, math.ceil((n - a) / (2 * threads)))
        out.append((a, min(n, a + size)))
        a += size
    return out


def batchable(world, graph, cache: dict) -> bool:
    """Whether ``graph``'s requests may be answered in batches: every
    plugin whose ``navcore_find_path`` serves this graph also implements
    ``navcore_find_paths`` (so no per-request answer is bypassed), and no
    find_path wrapper or path post-processor is registered."""
    key = (type(graph), world.plugins.version)
    got = cache.get(key)
    if got is None:
        hook = world.plugins.hook
        single = hook.navcore_find_path.get_hookimpls()
        batch = hook.navcore_find_paths.get_hookimpls()
        got = bool(batch) and not hook.navcore_postprocess_path.get_hookimpls() \
            and not any(i.wrapper or i.hookwrapper for i in single)
        if got:
            batch_plugins = {id(i.plugin) for i in batch}
            for i in single:
                classes = getattr(i.function, "navcore_graph_classes", None)
                if classes is not None and not isinstance(graph, classes):
                    continue
                if id(i.plugin) not in batch_plugins:
                    got = False
                    break
        if len(cache) > 64:
            cache.clear()
        cache[key] = got
    return got


def run_round(world, jobs, items, cache: dict, per: dict,
              least_s: float = MIN_CHUNK_S) -> dict:
    """Search every item of ``items`` that has a ``request`` (others have
    their result or error already); fill in ``result``/``error``. ``per``:
    the seconds a search on each graph is expected to take (chunk sizes).
    With workers the thread that calls this takes chunks too (it would
    only wait): ``workers`` threads search in all. ``least_s``: the least
    work of a chunk (``MIN_CHUNK_S``); 0 makes each search a chunk and
    hands every chunk to the worker threads. Returns ``{graph_id:
    [(searches, seconds) per chunk]}`` for the time estimates."""
    groups: dict = {}
    for it in items:
        if it.request is not None:
            r = it.request
            groups.setdefault((r.graph_id, r.algorithm), []).append(it)
    workers = jobs.workers
    chunks = []
    for (gid, algorithm), members in groups.items():
        graph = world.graph(gid)
        ok = batchable(world, graph, cache)
        if ok:
            starts = np.fromiter((it.request.start_node for it in members), np.int32,
                                 len(members))
            goals = np.fromiter((it.request.goal_node for it in members), np.int32,
                                len(members))
        for a, b in chunk_bounds(len(members), workers, per.get(gid), least_s):
            batch = PathBatch(gid, algorithm, starts[a:b], goals[a:b]) if ok else None
            chunks.append(_Chunk(graph, members[a:b], batch))
    if not chunks:
        return {}
    counter = itertools.count()
    clock = time.perf_counter

    def work():
        while True:
            k = next(counter)         # atomic under the GIL
            if k >= len(chunks):
                return
            c = chunks[k]
            t0 = clock()
            c.run(world)
            c.seconds = clock() - t0

    if workers and least_s <= 0:
        jobs.run_on_workers(work, min(workers, len(chunks)))
    elif workers and len(chunks) > 1:
        jobs.run_on_workers(work, min(workers, len(chunks)) - 1, here=True)
    else:
        work()
    timing: dict = {}
    for c in chunks:
        c.collect()
        timing.setdefault(c.items[0].request.graph_id, []).append((len(c.items), c.seconds))
    return timing
