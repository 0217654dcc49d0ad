"""Jobs with handles and dependencies, run on a worker pool or inline.

Like a game engine's job system: ``schedule(fn, *args, depends_on=[...])``
returns a ``JobHandle`` at once; ``complete()`` waits for the job and
returns its result (or raises what it raised). With ``workers=0`` every job
runs on the thread that schedules it, in order, so replays are exact. With
``workers=N`` a job is handed to the pool once all its dependencies are
done; numba kernels release the GIL, so searches really run in parallel.

>>> s = JobScheduler(workers=0)
>>> a = s.schedule(lambda: 20)
>>> b = s.schedule(lambda x: x + 1, 1, depends_on=[a])
>>> a.complete() + b.complete()
22
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from navcore.errors import NavError


class JobHandle:
    """A scheduled job: ``done``, ``complete()``."""

    __slots__ = ("_fn", "_args", "_event", "_result", "_error", "_waiting", "_then")

    def __init__(self, fn, args):
        self._fn = fn
        self._args = args
        self._event = threading.Event()
        self._result = None
        self._error = None
        self._waiting = 0          # dependencies not done yet
        self._then = []            # jobs waiting for this one

    @property
    def done(self) -> bool:
        return self._event.is_set()

    def complete(self, timeout: float | None = None):
        """Wait for the job; return its result or raise its exception."""
        if not self._event.wait(timeout):
            raise NavError(f"job {self._fn!r} did not complete within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._result

    def _run(self):
        try:
            self._result = self._fn(*self._args)
        except BaseException as exc:    # handed to whoever completes the job
            self._error = exc
        self._event.set()


class JobScheduler:
    """Schedules jobs on ``workers`` threads (0: inline, deterministic)."""

    def __init__(self, workers: int = 0):
        if not isinstance(workers, int) or workers < 0:
            raise NavError(f"workers must be an integer >= 0, got {workers!r}")
        self.workers = workers
        self._pool = (ThreadPoolExecutor(workers, thread_name_prefix="navcore-worker")
                      if workers else None)
        self._lock = threading.Lock()

    def schedule(self, fn, *args, depends_on=()) -> JobHandle:
        """Run ``fn(*args)`` once every job in ``depends_on`` is done."""
        if not callable(fn):
            raise NavError(f"schedule needs a callable, got {fn!r}")
        if isinstance(depends_on, JobHandle):
            depends_on = (depends_on,)
        try:
            deps = list(depends_on)
        except TypeError:
            raise NavError(f"depends_on must be a JobHandle or a list of them, "
                           f"got {depends_on!r}") from None
        for d in deps:
            if not isinstance(d, JobHandle):
                raise NavError(f"depends_on holds {d!r}, not a JobHandle")
        job = JobHandle(fn, args)
        if self._pool is None:
            for d in deps:                 # inline: dependencies already ran
                d.complete()
            job._run()
            return job
        with self._lock:
            for d in deps:
                if not d.done:
                    job._waiting += 1
                    d._then.append(job)
            ready = job._waiting == 0
        if ready:
            self._submit(job)
        return job

    def _submit(self, job):
        pool = self._pool
        if pool is not None:
            try:
                pool.submit(self._run_and_release, job)
                return
            except RuntimeError:      # closed meanwhile: it runs here instead
                pass
        self._run_and_release(job)

    def _run_and_release(self, job):
        job._run()
        with self._lock:
            then, job._then = job._then, []
            ready = []
            for j in then:
                j._waiting -= 1
                if j._waiting == 0:
                    ready.append(j)
        for j in ready:
            self._submit(j)

    def run_on_workers(self, fn, n: int | None = None, here: bool = False) -> list:
        """Call ``fn()`` on ``n`` workers at once (all of them by default, or
        inline once with ``workers=0``) and return their results in order;
        with ``here`` also once on the calling thread (its result last),
        which would otherwise only wait."""
        pool = self._pool
        if pool is None:
            return [fn()]
        futures = [pool.submit(fn) for _ in range(n or self.workers)]
        mine = [fn()] if here else []
        return [f.result() for f in futures] + mine

    def close(self) -> None:
        """Stop the threads once the running jobs are done; jobs scheduled
        afterwards run inline, as with ``workers=0``. Idempotent."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
