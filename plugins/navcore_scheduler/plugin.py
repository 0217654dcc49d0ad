"""The scheduler plugin's hooks: a ``Scheduler`` per world, the frame of
``World.tick`` (``frame.py``), path requests served in the frame's work
phase, re-planning after updates."""
from __future__ import annotations

import navcore

from . import active
from . import frame as frames
from .scheduler import Scheduler


@navcore.hookimpl
def navcore_world_created(world):
    world.scheduler = Scheduler(world)


@navcore.hookimpl
def navcore_world_closed(world):
    if isinstance(world.scheduler, Scheduler):
        world.scheduler.close()


@navcore.hookimpl
def navcore_warm_up(world, graph):
    active.warm_up()
    frames.warm_up(world, graph)
    sched = getattr(world, "scheduler", None)
    if isinstance(sched, Scheduler) and sched.workers:
        sched.warm_up_workers(world, graph)


@navcore.hookimpl
def navcore_run_frame(world, frame, stats, deadline, budget_nodes, take_updates):
    sched = getattr(world, "scheduler", None)
    return frames.run_frame(world, sched if isinstance(sched, Scheduler) else None,
                            frame, stats, deadline, budget_nodes, take_updates)


def _requests(world):
    s = getattr(world, "scheduler", None)
    return s.requests if isinstance(s, Scheduler) else None


@navcore.hookimpl
def navcore_frame_work(world, deadline, stats, budget_nodes):
    q = _requests(world)
    if q is None:
        return
    stats.requests_served += q.serve(deadline, budget_nodes)
    stats.nodes_expanded += q.nodes_last
    if q.search_s_last:         # of time_requests_ms: the searches (the rest is Python
        stats.extra["search_ms"] = q.search_s_last * 1e3    # per request: resolve, publish)
    stats.requests_waiting = q.waiting


@navcore.hookimpl
def navcore_graph_updated(world, graph_id, graph, dirty):
    q = _requests(world)
    if q is not None:
        q.graph_updated(graph_id, graph, dirty)


@navcore.hookimpl
def navcore_components_changed(world, graph_id):
    q = _requests(world)
    if q is not None:
        q.areas_changed(graph_id)


# trylast: the frame's other end-of-frame work runs before a callback's
# error is raised again
@navcore.hookimpl(trylast=True)
def navcore_frame_end(world):
    q = _requests(world)
    if q is not None:
        q.raise_callback_errors()


@navcore.hookimpl
def navcore_graph_removed(world, graph_id):
    q = _requests(world)
    if q is not None:
        q.graph_removed(graph_id)
