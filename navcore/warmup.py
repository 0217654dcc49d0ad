"""``navcore.warm_up``: fill numba's cache before a game's first frame.

numba compiles each kernel the first time a machine runs it (tens of
seconds in all) and keeps the result in its cache, from which later runs
load it in milliseconds. ``warm_up`` builds a small graph of each type
(``navcore_sample_graph``: with the views a game may build, such as
``contract``) and warms it up (``navcore_warm_up``), so an installer or a
game's first launch pays the compiles once, behind a loading screen.
"""
from __future__ import annotations

import threading
import time

from . import limits, progress as _progress, validate
from .errors import FrameError, PluginError, UnknownGraphTypeError
from .progress import Steps


def warm_up(graph_types=None, *, progress=None, plugins=(), autoload=None) -> dict:
    """Compile (a first run) or load every kernel of ``graph_types`` (a
    type name or a list of them; every type the plugins offer by default).

    ``progress``: None or ``callback(done, total, name)``, called after
    each graph type (``done`` of ``total`` types, ``name`` the type) and,
    while kernels compile, with each kernel's name as numba starts it
    (``done`` unchanged), on this thread: a loading screen's bar. It ends
    at ``done == total``. ``plugins``/``autoload``: as for ``World``.
    Returns ``{type: seconds}``; None for a type whose plugin makes no
    sample graph (``navcore_sample_graph``), which is a ``PluginError``
    when the type is named.

    >>> import navcore
    >>> seen = []
    >>> took = navcore.warm_up("csr", progress=lambda *a: seen.append(a))
    >>> list(took), seen[-1]
    (['csr'], (1, 1, 'csr'))
    """
    from .world import World
    validate.progress_callback(progress, "warm_up: progress", PluginError)
    # workers: the grid's parallel batch kernels load only in a world with them
    world = World(plugins=plugins, autoload=autoload, warm_up=False,
                  workers=min(2, limits.max_workers()))
    try:
        offered = world.graph_types()
        if graph_types is None:
            types = sorted(offered)
        else:
            types = [graph_types] if isinstance(graph_types, str) else list(graph_types)
        for t in types:
            if t not in offered:
                raise UnknownGraphTypeError(
                    f"warm_up: unknown graph type {t!r}; known types: "
                    f"{', '.join(sorted(offered)) or 'none'}")
        took = {}
        with Steps(progress, len(types)) as report:
            for t in types:
                t0 = time.perf_counter()
                graph = world.plugins.hook.navcore_sample_graph(
                    world=world, graph_type=t, graph_id=t)
                if graph is None:
                    if graph_types is not None:
                        raise PluginError(f"warm_up: plugin {offered[t]!r} makes no sample "
                                          f"graph of type {t!r} (hook navcore_sample_graph)")
                    took[t] = None               # a plugin without the hook: left cold
                    report.step(f"{t} (no sample graph: plugin {offered[t]!r})")
                    continue
                world.warm_up(t)
                world.remove_graph(t)
                took[t] = time.perf_counter() - t0
                report.step(t)
        return took
    finally:
        close = getattr(world.scheduler, "close", None)
        if close is not None:
            close()


def warm(world, graph_id=None, progress=None) -> float:
    """``World.warm_up``: the plugins' warm-ups of ``graph_id`` (every
    graph by default), told to ``progress`` or the world's
    ``on_progress``; the seconds it took."""
    validate.progress_callback(progress, "warm_up: progress")
    world.ready()
    t0 = time.perf_counter()
    graphs = list(world.graphs.values()) if graph_id is None else [world.graph(graph_id)]
    steps = [steps_of(world, g) for g in graphs]
    with Steps(progress or world.on_progress, sum(map(len, steps))) as report:
        for graph, todo in zip(graphs, steps):
            warm_graph(world, graph, todo, report)
    return time.perf_counter() - t0


def wait(world, timeout=None) -> bool:
    """``World.ready``: wait up to ``timeout`` seconds (``None``: as long
    as it takes) for the world's background warm-ups, in the order they
    began; False when one is still running then. Raises the error of a
    warm-up that failed."""
    if timeout is not None and not (isinstance(timeout, (int, float))
                                    and not isinstance(timeout, bool)
                                    and timeout == timeout):
        raise FrameError(f"ready: timeout must be a number of seconds or None, "
                         f"got {timeout!r}")
    timeout = None if timeout is None or timeout > 1e9 else timeout   # ~30 years: forever
    deadline = None if timeout is None else time.perf_counter() + max(0.0, timeout)
    for graph_id, job in list(world._warming.items()):
        left = None if deadline is None else max(0.0, deadline - time.perf_counter())
        if not job.done.wait(left):
            return False
        world._warming.pop(graph_id, None)
        job.raise_error()
    return True


def steps_of(world, graph) -> list:
    """``[(plugin_name, call)]``: the plugins' warm-ups of ``graph``."""
    return world.plugins.each_impl("navcore_warm_up", ("world", "graph"), type(graph))


def warm_graph(world, graph, steps=None, report=None) -> None:
    """Run the plugins' warm-ups of ``graph`` (``World.warm_up``), telling
    ``report`` (a ``progress.Steps``; one made for ``world.on_progress``
    when None) after each, and add the time to ``world.warm_up_seconds``."""
    if report is None:
        steps = steps_of(world, graph)
        with Steps(world.on_progress, len(steps)) as report:
            return warm_graph(world, graph, steps, report)
    t0 = time.perf_counter()
    with _progress.stage(f"loading the kernels of graph {graph.graph_id!r}"):
        for plugin_name, call in steps:
            call(world, graph)
            report.step(f"{plugin_name or 'plugins'}: graph {graph.graph_id!r}")
    world.warm_up_seconds += time.perf_counter() - t0


class BackgroundWarmUp:
    """One graph's warm-up on a daemon thread, after the warm-ups before
    it (one at a time: they would only queue on numba's compiler lock)."""

    def __init__(self, world, graph, earlier):
        self.done = threading.Event()
        self.error: BaseException | None = None
        before = [job.done for job in earlier]

        def run():
            for ev in before:
                ev.wait()
            world._warm_thread.active = True
            try:
                warm_graph(world, graph)
            except BaseException as exc:      # handed to ready(), on the game's thread
                self.error = exc
            finally:
                self.done.set()

        threading.Thread(target=run, daemon=True,
                         name=f"navcore-warm-up-{graph.graph_id!r}").start()

    def raise_error(self) -> None:
        if self.error is not None:
            err, self.error = self.error, None
            raise err
