"""Progress on the command line: numba's first-run compiles, and what a
long command is doing (``stage`` / ``heartbeat``).

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

Large but legal input takes a while to load (a country's OSM extract, a
navmesh baked from a big map, a million-query scenario file). Work wraps
itself in ``stage("reading ...")`` (``World.add_graph`` does for every
graph), and ``heartbeat()``, which the CLI runs around every command, says
on stderr which stage is running once it has run ``delay`` seconds (on a
terminal a line that counts the seconds; otherwise one line), so a command
never sits silent.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

_stages: list = []           # [label, started] of the running stages, innermost last
_stages_lock = threading.Lock()
_compiling = threading.Event()    # set while the compile bar is on screen


@contextlib.contextmanager
def stage(label: str):
    """Mark the work of the block as ``label`` for ``heartbeat`` (nesting:
    the innermost stage is shown). Cheap: two list operations."""
    entry = [label, time.perf_counter()]
    with _stages_lock:
        _stages.append(entry)
    try:
        yield
    finally:
        with _stages_lock:
            _stages.remove(entry)


def current_stage():
    """``(label, seconds it has run)`` of the innermost running stage, or None."""
    with _stages_lock:
        if not _stages:
            return None
        label, t0 = _stages[-1]
    return label, time.perf_counter() - t0


@contextlib.contextmanager
def heartbeat(file=None, delay: float = 2.0, every: float = 1.0):
    """While the block runs, say on ``file`` (stderr) what stage is running
    once it has run ``delay`` seconds: on a terminal one line, rewritten
    every ``every`` seconds and cleared at the end; elsewhere one line per
    stage. Silent while the compile bar is shown."""
    out = file or sys.stderr
    tty = getattr(out, "isatty", lambda: False)()
    done = threading.Event()
    said = set()

    def beat():
        shown = False
        while not done.wait(every):
            now = current_stage()
            if now is None or now[1] < delay or _compiling.is_set():
                continue
            label, secs = now
            try:
                if tty:
                    out.write(f"\rnavcore: {label} ({secs:.0f} s)\x1b[K")
                    out.flush()
                    shown = True
                elif label not in said:
                    said.add(label)
                    print(f"navcore: {label} (still working after {secs:.0f} s)", file=out,
                          flush=True)
            except (OSError, ValueError):       # the terminal went away
                return
        if shown:
            try:
                out.write("\r\x1b[K")
                out.flush()
            except (OSError, ValueError):
                pass

    thread = threading.Thread(target=beat, name="navcore-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextlib.contextmanager
def compile_progress(file=None, delay: float = 0.5):
    """Show numba's compiles on ``file`` (stderr) while the block runs; yields
    the counter (``.compiled``: kernels compiled, ``.seconds``: time from
    the first compile to the last)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        yield _CompileCounter(None, delay)       # nothing is ever compiled
        return
    counter = _CompileCounter(file or sys.stderr, delay)
    with _compiles(counter.started, counter.finished):
        try:
            yield counter
        finally:
            counter.close()


class Steps:
    """A warm-up's report to a loading screen: ``callback(done, total,
    name)`` after each of ``total`` steps (:meth:`step`), and, while the
    block compiles kernels on this thread (a first run), with the name of
    each kernel numba starts compiling (``done`` unchanged). A context
    manager; with ``callback=None`` it does nothing.

    >>> seen = []
    >>> with Steps(lambda *a: seen.append(a), 2) as report:
    ...     report.step("a")
    ...     report.step("b")
    >>> seen
    [(1, 2, 'a'), (2, 2, 'b')]
    """

    def __init__(self, callback, total: int):
        self.callback, self.total, self.done = callback, int(total), 0
        self._listening = None

    def step(self, name: str) -> None:
        self.done += 1
        if self.callback is not None:
            self.callback(self.done, self.total, name)

    def __enter__(self) -> "Steps":
        if self.callback is None or os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
            return self
        thread = threading.get_ident()

        def compiling(name):
            if threading.get_ident() == thread:
                self.callback(self.done, self.total, f"compiling {name}")
        self._listening = _compiles(compiling)
        self._listening.__enter__()
        return self

    def __exit__(self, *exc) -> bool:
        if self._listening is not None:
            self._listening.__exit__(*exc)
            self._listening = None
        return False


def _compiles(started, finished=None):
    """A context in which each kernel numba compiles calls ``started(name)``
    and ``finished()`` (on the compiling thread). A kernel that calls
    another compiles the callee inside its own compile: both count;
    numba's own helpers (``np.empty`` & co.) do not."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            name = _kernel_name(ev)
            if name:
                started(name)

        def on_end(self, ev):
            if finished is not None and _kernel_name(ev):
                finished()
    return event.install_listener("numba:compile", Listener())


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
            _compiling.set()
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
            _compiling.clear()
        if self._shown:
            print(f"navcore: compiled {self.compiled} kernels in {self.seconds:.1f} s "
                  f"(first run; later runs load them from numba's cache)", file=self.file)
