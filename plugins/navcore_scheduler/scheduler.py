"""``Scheduler``: what ``world.scheduler`` is when this plugin is loaded."""
from __future__ import annotations

import threading

from navcore.errors import NavError
from navcore.types import PathRequest

from .jobs import JobHandle, JobScheduler
from .requests import PathHandle, RequestQueue


class Scheduler:
    """Jobs (``schedule``) and path requests (``request_path``) of a world.

    ``workers`` comes from ``navcore.World(workers=N)``: 0 runs everything
    on the thread that calls ``tick`` (deterministic, the default); N > 0
    runs searches and jobs on N threads.
    """

    def __init__(self, world):
        self.jobs = JobScheduler(world.workers)
        self.requests = RequestQueue(world, self.jobs)

    @property
    def workers(self) -> int:
        return self.jobs.workers

    @property
    def min_chunk_ms(self) -> float:
        """The least search time a worker thread's chunk of requests
        served one at a time is expected to take (0.5 ms; batches go to
        the worker count of threads in one parallel call instead, see
        ``rounds.py``); a frame with less than twice that is searched on
        the ticking thread alone, as handing work to another thread costs
        more than it saves. 0: every such search a chunk of its own, all on
        the worker threads, and every batch offered to the threads
        (``navcore.testing``'s ``workers_agree`` check sets it so each
        thread really searches)."""
        return self.requests.min_chunk_s * 1e3

    @min_chunk_ms.setter
    def min_chunk_ms(self, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 \
                or value > 1e12:
            raise NavError(f"min_chunk_ms must be a number of milliseconds from 0 to 1e12, "
                           f"got {value!r}")
        self.requests.min_chunk_s = float(value) / 1e3

    def schedule(self, fn, *args, depends_on=()) -> JobHandle:
        """Run ``fn(*args)`` as a job after ``depends_on``; see ``jobs.py``."""
        return self.jobs.schedule(fn, *args, depends_on=depends_on)

    def request_path(self, graph_id, start, goal, *, algorithm="auto", callback=None,
                     repath=False, replan_from=None, max_nodes=None,
                     partial=False, **options) -> PathHandle:
        return self.requests.request(graph_id, start, goal, algorithm, callback, repath,
                                     replan_from, max_nodes, partial, options)

    def warm_up_workers(self, world, graph) -> None:
        """Let every worker thread make its search scratch for ``graph`` now
        (one query from a walkable node to itself each, all at once so no
        thread runs two): a worker's first search would otherwise allocate
        and touch it inside a frame (78 ms on a 1000x1000 grid)."""
        free = graph.first_walkable()           # wherever it is (first rows of walls)
        if not free.size:
            return
        s = int(free[0])
        request = PathRequest(graph.graph_id, s, s, "auto", s, s, {})
        barrier = threading.Barrier(self.workers)

        def one():
            try:
                barrier.wait(timeout=30)
            except threading.BrokenBarrierError:    # a busy pool: still warm up
                pass
            world.solve(graph, request)
        self.jobs.run_on_workers(one, self.workers)

    def close(self) -> None:
        """Finish every waiting or kept-up-to-date path request
        ``cancelled`` and stop the worker threads (waiting for the jobs
        already running). ``World.close()`` calls it; call that instead."""
        self.requests.close()
        self.jobs.close()
