"""Progress for numba's first-run compiles, on the command line.

Every kernel is compiled once per machine and then loaded from numba's
cache in milliseconds; on the first run the compiles take tens of seconds,
which a command should not spend in silence. ``compile_progress()`` counts
the kernels numba compiles while it is active (on any thread: a world's
background warm-up, worker threads) and, once compiling has gone on for
``delay`` seconds, shows the count and the kernel being compiled on
stderr, then one line with the total. On a warm cache nothing compiles,
so nothing is shown.

    with compile_progress():
        run_the_command()
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time


@contextlib.contextmanager
def compile_progress(file=None, delay: float = 0.5):
    """Show numba's compiles on ``file`` (stderr) while the block runs; yields
    the counter (``.compiled``: kernels compiled, ``.seconds``: time from
    the first compile to the last)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        yield _CompileCounter(None, delay)       # nothing is ever compiled
        return
    from numba.core import event

    class Listener(event.Listener):
        # a kernel that calls another compiles the callee inside its own
        # compile: both count; numba's own helpers (np.empty & co.) do not
        def on_start(self, ev):
            name = _kernel_name(ev)
            if name:
                counter.started(name)

        def on_end(self, ev):
            if _kernel_name(ev):
                counter.finished()

    counter = _CompileCounter(file or sys.stderr, delay)
    with event.install_listener("numba:compile", Listener()):
        try:
            yield counter
        finally:
            counter.close()


def _kernel_name(ev) -> str | None:
    fn = getattr(ev.data.get("dispatcher"), "py_func", None)
    if fn is None or fn.__module__.startswith("numba."):
        return None
    return f"{fn.__module__}.{fn.__qualname__}"


class _CompileCounter:
    """Compiles so far and the bar that shows them (made once ``delay``
    seconds have passed since the first compile, on a terminal)."""

    def __init__(self, file, delay):
        self.file, self.delay = file, delay
        self.compiled = 0
        self.seconds = 0.0
        self._t0 = None
        self._bar = None
        self._shown = False
        self._lock = threading.Lock()

    def started(self, name: str) -> None:
        with self._lock:
            now = time.perf_counter()
            if self._t0 is None:
                self._t0 = now
            self._show(name, now)

    def finished(self) -> None:
        with self._lock:
            now = time.perf_counter()
            self.compiled += 1
            self.seconds = now - self._t0
            self._show(None, now)

    def _show(self, name, now) -> None:
        if self.file is None or now - self._t0 < self.delay:
            return
        self._shown = True
        if self._bar is None and getattr(self.file, "isatty", lambda: False)():
            from tqdm import tqdm
            self._bar = tqdm(desc="navcore: compiling kernels (first run only)",
                             unit=" kernels", file=self.file, leave=False)
        if self._bar is not None:
            self._bar.n = self.compiled
            if name:
                self._bar.set_postfix_str(name, refresh=False)
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        if self._shown:
            print(f"navcore: compiled {self.compiled} kernels in {self.seconds:.1f} s "
                  f"(first run; later runs load them from numba's cache)", file=self.file)
