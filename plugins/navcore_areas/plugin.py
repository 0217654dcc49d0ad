"""The areas plugin's hooks: a ``Hierarchy`` per graph, built when the
graph is added and updated after every applied batch; O(1) ``reachable``,
areas, ``nearest_reachable`` and the early ``unreachable`` answer of
``find_path``; the borders of its nodes in scene pictures."""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.types import PathResult, PathStatus

from .hierarchy import Hierarchy

#: ``NavGraph.end_nodes`` of graphs whose query ends lie in their node alone
_PLAIN_ENDS = navcore.NavGraph.end_nodes
#: where a graph keeps its hierarchy (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_areas"
_CHANGED_ARGS = ("world", "graph_id", "changed_areas")


def hierarchy_of(graph) -> Hierarchy:
    """The graph's current ``Hierarchy``. It is built when the graph is
    added and follows every update, so this builds only for a graph added
    before this plugin was registered (areas have no other source)."""
    graph = validate.graph(graph)
    return graph.view(VIEW_KEY, Hierarchy)


@navcore.hookimpl
def navcore_graph_built(graph):
    hierarchy_of(graph)


@navcore.hookimpl
def navcore_warm_up(world, graph):
    hierarchy_of(graph).warm_up()
    world.plugins.caller("navcore_components_changed", None, _CHANGED_ARGS)  # made once


@navcore.hookimpl
def navcore_graph_removed(graph):
    graph.drop_view(VIEW_KEY)


# The areas follow the batch before every other observer runs (so queries
# they make see current areas), and the split/merge event is fired after
# them: two plain implementations, first and last, rather than one hook
# wrapper, whose generator costs a few microseconds on every tick
@navcore.hookimpl(tryfirst=True)
def navcore_graph_updated(graph, dirty):
    changed = _follow(graph, dirty)
    h = graph.stored_view(VIEW_KEY)
    if h is not None:               # for _announce
        h._note_changed(changed)


@navcore.hookimpl(specname="navcore_graph_updated", trylast=True)
def _announce(world, graph_id, graph):
    h = graph.stored_view(VIEW_KEY)
    changed = None if h is None else h._take_changed()
    if changed is not None and changed.size:
        world.plugins.caller("navcore_components_changed", None, _CHANGED_ARGS)(
            world, graph_id, changed)


def _follow(graph, dirty) -> np.ndarray:
    """Bring the graph's hierarchy up to date with the batch that made
    ``dirty``; the area ids that split, merged, appeared or vanished."""
    h = graph.stored_view(VIEW_KEY)
    if h is None:
        return np.empty(0, np.int32)
    if h.version == graph.version - 1 and graph.num_nodes >= h.num_nodes:
        if graph.num_nodes > h.num_nodes:      # the batch added nodes (all dirty)
            h._grow(graph.num_nodes)
        changed = h._update(dirty)
        h.mark_current()
        return changed
    old = h._areas(None)                  # it missed a batch: measure again
    h = Hierarchy(graph)
    graph.set_view(VIEW_KEY, h)
    ids = np.concatenate([old, h._areas(None)])
    return np.unique(ids[ids >= 0]).astype(np.int32)    # every area, old or new


# a pre-check (navcore.precheck): asked before every backend's search,
# whichever plugin was registered last
@navcore.hookimpl
@navcore.precheck
def navcore_find_path(world, graph, request):
    # different areas: no path exists, answer without searching. On every
    # query's path (before every search), so four array reads as Python
    # ints and no other call; it takes the hook's arguments in the hook's
    # order, so the dispatcher calls it without an adapter in between
    h = graph.view(VIEW_KEY)
    if h is None:               # not current: let a search answer
        return None
    hn, ha = h.hnode_of, h.harea
    s, t = request.start_node, request.goal_node
    if ha.item(hn.item(s)) != ha.item(hn.item(t)) and graph.paths_follow_edges:
        if _end_areas(graph, h, request.start, s).isdisjoint(
                _end_areas(graph, h, request.goal, t)):
            # a new result each time: World sets its version
            return PathResult(PathStatus.UNREACHABLE, algorithm="hierarchy")
    return None


def _end_areas(graph, h, end, node) -> set:
    """The areas a query's end lies in: its node's, or those of every node
    it lies in (``NavGraph.end_nodes``: a navmesh corner two areas share)."""
    nodes = graph.end_nodes(end, node)
    if nodes is None:
        return {int(h.harea[h.hnode_of[node]])}
    return set(h.harea[h.hnode_of[nodes]].tolist())


# navcore_find_path's pre-check for a search run a slice at a time
@navcore.hookimpl
@navcore.precheck
def navcore_begin_search(world, graph, request):
    # navcore_find_path's early answer, as a search already finished
    result = navcore_find_path(world, graph, request)
    return None if result is None else navcore.Search.finished(graph, request, result)


@navcore.hookimpl
@navcore.precheck
def navcore_find_paths(graph, batch):
    # navcore_find_path's early answer for a whole batch: one vectorised
    # comparison, the pairs in different areas answered unreachable
    h = graph.view(VIEW_KEY)
    if h is None or type(graph).end_nodes is not _PLAIN_ENDS or not graph.paths_follow_edges:
        return        # (ends that may lie in several nodes: one at a time)
    idx = batch.todo()
    hn, ha = h.hnode_of, h.harea
    apart = ha[hn[batch.starts[idx]]] != ha[hn[batch.goals[idx]]]
    if apart.any():
        batch.answer_status(idx[apart], PathStatus.UNREACHABLE, "hierarchy")


@navcore.hookimpl(tryfirst=True)
def navcore_reachable(graph, a, b):
    if not graph.paths_follow_edges:       # its backend knows the other ways
        return None
    h = hierarchy_of(graph)
    same = h._area(a) == h._area(b) and h._area(a) >= 0
    if not same:
        return False
    if graph.directed:          # same weak component: only a search can tell
        return None
    return True


@navcore.hookimpl(tryfirst=True)
def navcore_reachable_many(graph, a, b):
    if graph.directed or not graph.paths_follow_edges:
        return None
    h = hierarchy_of(graph)
    ok = (a >= 0) & (b >= 0)
    out = ok.copy()
    out[ok] = h._same_area(a[ok], b[ok])
    return out


@navcore.hookimpl
def navcore_areas(graph, nodes):
    return hierarchy_of(graph)._areas(nodes)


@navcore.hookimpl
def navcore_nearest_reachable(graph, point, start):
    return hierarchy_of(graph).nearest_reachable(point, start)


@navcore.hookimpl
def navcore_draw_overlay(graph, canvas):
    # --borders: where one hierarchical node (at most 256 graph nodes)
    # meets another; the canvas knows which node each pixel shows
    if canvas.borders:
        h = graph.view(VIEW_KEY)
        if h is not None:
            canvas.outline(h.hierarchical_nodes())


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli
    cli.add_command(subparsers)
