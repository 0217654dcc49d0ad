"""numba's parallel kernels called from several Python threads.

numba runs every ``parallel=True`` kernel on one process-wide thread pool.
Its ``workqueue`` threading layer, the one numba falls back to when neither
TBB nor OpenMP is installed (a macOS machine without them, for one), aborts
the whole process when two Python threads launch parallel kernels at once;
the OpenMP and TBB layers allow it. A world with workers does exactly that
(a background contraction beside the tick's batch searches), so every
plugin wraps each call of a parallel kernel in :func:`parallel_section`:

>>> from navcore.parallel import parallel_section
>>> with parallel_section() as may_run:
...     may_run
True

Under a thread-safe layer it holds nothing (one check); under
``workqueue``, or before numba has picked a layer, it holds one
process-wide lock (re-entrant, so a section may call code that opens
another). ``parallel_section(blocking=False)`` gives ``False`` instead of
waiting when another thread holds the lock, for a caller that can do its
work sequentially instead (a frame must not wait behind a contraction).

How many threads a kernel runs on is one policy, :func:`threads_for`
(held by :func:`kernel_threads` around the call): a graph in
``World(workers=0)`` runs every kernel on the calling thread, a graph in
``World(workers=N)`` on up to ``N`` numba threads, and only when the
call's work reaches the kernel's break-even (measured on 2 cores, see
BENCHMARKS.md "Serial or parallel"): below it, waking the pool and the
barrier at the end cost more than the half of the work they save. And
only on cores no other program is running on at the moment of the call
(:func:`free_cores`): a parallel region waits at its end for every
thread, and one the OS has not scheduled costs a time slice (a 50x50
road matrix took 80 ms instead of 0.15 ms with three busy processes
beside it; 32 CH pairs 24 ms instead of 0.23 ms on one thread).

>>> from navcore.parallel import kernel_threads
>>> with kernel_threads(0, work=10 ** 9, least=1) as n:   # workers=0
...     n
1
"""
from __future__ import annotations

import threading

import os
from contextlib import contextmanager

import numba

_LOCK = threading.RLock()
_layer: list[str | None] = [None]      # numba's threading layer, once known


def concurrent_ok() -> bool:
    """Whether parallel kernels may run from two Python threads at once
    (False until numba has run a parallel kernel and picked its layer)."""
    if _layer[0] is None:
        try:
            _layer[0] = numba.threading_layer()
        except ValueError:              # no parallel kernel has run yet
            return False
    return _layer[0] != "workqueue"


class _Free:
    """A section under a thread-safe layer: nothing to hold."""

    __slots__ = ()

    def __enter__(self) -> bool:
        return True

    def __exit__(self, *exc) -> bool:
        return False


class _Held:
    """A section under ``workqueue``: the process-wide lock while inside."""

    __slots__ = ("blocking", "got")

    def __init__(self, blocking: bool):
        self.blocking = blocking
        self.got = False

    def __enter__(self) -> bool:
        self.got = _LOCK.acquire(self.blocking)
        return self.got

    def __exit__(self, *exc) -> bool:
        if self.got:
            _LOCK.release()
        return False


_FREE = _Free()


def parallel_section(blocking: bool = True):
    """A context manager to hold around a call of a parallel kernel; it
    enters as ``True`` when the kernel may run, ``False`` only with
    ``blocking=False`` while another thread is inside a section under a
    layer that is not thread-safe (then do the work sequentially)."""
    if concurrent_ok():
        return _FREE
    return _Held(bool(blocking))


def max_threads(owner) -> int:
    """The most numba threads a kernel working for ``owner`` may use: a
    ``World`` or a graph in one (its ``workers``; 0 means the calling
    thread only), an object with a ``graph`` (a view, a query), an int
    (a thread count), or None (a graph outside any world: numba's setting
    for this thread, ``numba.set_num_threads``)."""
    for _ in range(4):                   # a query of a view of a graph
        if owner is None:
            return numba.get_num_threads()
        if isinstance(owner, int):
            return max(1, min(owner, numba.config.NUMBA_NUM_THREADS))
        workers = getattr(owner, "workers", None)
        if workers is not None:
            return max(1, min(int(workers), numba.config.NUMBA_NUM_THREADS))
        owner = getattr(owner, "graph", None)
    return numba.get_num_threads()


_CPUS = os.cpu_count() or 1
try:                                    # Linux: runnable tasks, read in ~3 us
    _LOADAVG = os.open("/proc/loadavg", os.O_RDONLY)
except OSError:
    _LOADAVG = None


def _running() -> int | None:
    """Tasks runnable on the machine now (this thread among them), or None
    where the system does not say (then every core counts as free)."""
    if _LOADAVG is None:
        return None
    try:
        return int(os.pread(_LOADAVG, 64, 0).split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def free_cores() -> int:
    """Cores no other task is running on right now, this thread's own
    included (at least 1): the machine's cores less the other runnable
    tasks (``/proc/loadavg``; all the cores where that is not known)."""
    running = _running()
    if running is None:
        return _CPUS
    return max(1, _CPUS - max(running - 1, 0))


def threads_for(owner, work, least) -> int:
    """Threads for a kernel call doing ``work`` units (rows, pairs, arcs,
    ... each kernel counts its own) whose parallel run pays from ``least``
    units on: 1 below it, else :func:`max_threads` of ``owner``, but no
    more than :func:`free_cores`."""
    if work < least:
        return 1
    n = max_threads(owner)
    return n if n < 2 else min(n, free_cores())


@contextmanager
def kernel_threads(owner, work, least):
    """Run the parallel kernel called inside on :func:`threads_for`
    threads, entering as that count (1: the kernel's ``prange`` loops run
    on the calling thread and never wake numba's pool). numba's thread
    count is per calling thread: it is set for this thread and restored
    on the way out. Holds :func:`parallel_section` while inside."""
    n = threads_for(owner, work, least)
    with parallel_section():
        previous = numba.get_num_threads()
        if previous != n:
            numba.set_num_threads(n)
        try:
            yield n
        finally:
            if previous != n:
                numba.set_num_threads(previous)
