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
"""
from __future__ import annotations

import threading

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
