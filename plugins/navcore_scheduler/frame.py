"""One frame of ``World.tick`` (``navcore_run_frame``): the queued updates
applied as one batch per graph (on the worker threads when there are
several graphs and workers), the observers told, the budgeted work done,
the frame's stats reported."""
from __future__ import annotations

import time

from navcore.errors import NavError, UpdateError

#: the frame loop's hooks called per graph: their callers are made per
#: graph class at warm-up, without the hooks of plugins that serve other
#: classes only (``navcore.for_graphs``)
PER_GRAPH = ("navcore_make_update", "navcore_apply_updates", "navcore_graph_updated")
PER_FRAME = ("navcore_frame_start", "navcore_frame_work", "navcore_frame_move",
             "navcore_frame_end")


def warm_up(world, graph) -> None:
    """Make the frame loop's hook callers now (each ~0.1 ms), not in a frame."""
    for name in PER_GRAPH:
        world.plugins.caller(name, type(graph))
    for name in PER_FRAME:
        world.plugins.caller(name)


def run_frame(world, scheduler, frame, stats, deadline, budget_nodes, take_updates):
    """``navcore_run_frame``: see navcore/hookspecs.py."""
    caller = world.plugins.caller
    t0 = time.perf_counter()
    caller("navcore_frame_start")(world, frame)
    applied, failed = [], []
    work = take_updates()
    if work:
        for (graph_id, graph, batch), dirty in zip(work, _apply_all(world, scheduler, work)):
            if dirty is None:
                dirty = UpdateError(f"no plugin applied the updates of {graph.kind} "
                                    f"graph {graph_id!r}")
            if isinstance(dirty, Exception):
                failed.append((graph_id, len(batch), dirty))
                continue
            stats.updates_applied += len(batch)
            stats.dirty_nodes += len(dirty)
            applied.append((graph_id, graph, dirty))
    t1 = time.perf_counter()
    for graph_id, graph, dirty in applied:
        caller("navcore_graph_updated", type(graph))(world, graph_id, graph, dirty)
    if failed:
        _raise_failed_batch(failed, len(applied))
    t2 = time.perf_counter()
    caller("navcore_frame_work")(world, deadline, stats, budget_nodes)
    t3 = time.perf_counter()
    if world.crowds:
        caller("navcore_frame_move")(world, stats)
    stats.time_move_ms = (time.perf_counter() - t3) * 1e3
    stats.time_updates_ms = (t1 - t0) * 1e3
    stats.time_observers_ms = (t2 - t1) * 1e3
    stats.time_requests_ms = (t3 - t2) * 1e3
    stats.time_total_ms = (time.perf_counter() - t0) * 1e3
    world.last_stats = stats       # before frame_end: its hooks may raise (callbacks)
    caller("navcore_frame_end")(world, frame, stats)
    return stats


def _apply_all(world, scheduler, work) -> list:
    """Dirty nodes (or the exception) per ``(graph_id, graph, batch)``.
    Graphs are independent, so with workers each graph's batch is a job of
    its own; observers still run afterwards, in order, on this thread."""
    if len(work) < 2 or scheduler is None or not scheduler.workers:
        return [_apply(world, g, b) for _, g, b in work]
    jobs = [scheduler.schedule(_apply, world, g, b) for _, g, b in work]
    return [job.complete() for job in jobs]


def _apply(world, graph, batch):
    """One graph's batch through ``navcore_apply_updates``, inside
    ``graph.begin_write``/``end_write`` (views built on other threads
    read again after it)."""
    apply = world.plugins.caller("navcore_apply_updates", type(graph))
    graph.begin_write()
    dirty = None
    try:
        dirty = apply(world, graph, batch)
        return dirty
    except Exception as exc:         # raised once the other graphs' batches are in
        return exc
    finally:
        graph.end_write(dirty)       # the batch's dirty nodes go in its log


def _raise_failed_batch(failed, applied: int):
    """The first batch that failed in a frame, raised as a ``NavError``
    once every other graph's batch is applied and observed."""
    graph_id, size, exc = failed[0]
    others = (f"; {applied} other graph(s)' batches were applied" if applied else "") + \
        (f"; {len(failed) - 1} more graph(s)' batches failed too" if len(failed) > 1 else "")
    note = f"the {size} update(s) queued for graph {graph_id!r} were dropped{others}"
    if isinstance(exc, NavError):
        exc.add_note(note)
        raise exc
    raise UpdateError(f"applying the updates of graph {graph_id!r} failed: "
                      f"{type(exc).__name__}: {exc} ({note})") from exc
