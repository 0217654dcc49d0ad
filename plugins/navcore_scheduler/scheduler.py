"""``Scheduler``: what ``world.scheduler`` is when this plugin is loaded."""
from __future__ import annotations

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

    def schedule(self, fn, *args, depends_on=()) -> JobHandle:
        """Run ``fn(*args)`` as a job after ``depends_on``; see ``jobs.py``."""
        return self.jobs.schedule(fn, *args, depends_on=depends_on)

    def request_path(self, graph_id, start, goal, *, algorithm="auto", callback=None,
                     repath=False, replan_from=None) -> PathHandle:
        return self.requests.request(graph_id, start, goal, algorithm, callback, repath,
                                     replan_from)

    def close(self) -> None:
        self.jobs.close()
