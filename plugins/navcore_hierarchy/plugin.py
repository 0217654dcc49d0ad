"""The hierarchy plugin's hooks: a ``Hierarchy`` per graph, built when the
graph is added and updated after every applied batch; O(1) ``reachable``,
areas, ``nearest_reachable`` and the early ``unreachable`` answer of
``find_path``."""
from __future__ import annotations

import navcore
from navcore.types import PathResult, PathStatus

from .hierarchy import Hierarchy

_KEY = "navcore_hierarchy"
_UNREACHABLE = PathResult(PathStatus.UNREACHABLE, expanded=0, algorithm="hierarchy")


def hierarchy_of(graph) -> Hierarchy:
    """The graph's ``Hierarchy``, built on first use if the graph was added
    before this plugin was registered."""
    h = graph.extensions.get(_KEY)
    if h is None:
        h = graph.extensions[_KEY] = Hierarchy(graph)
    return h


@navcore.hookimpl
def navcore_graph_built(graph):
    hierarchy_of(graph)


@navcore.hookimpl
def navcore_warm_up(graph):
    hierarchy_of(graph).warm_up()


@navcore.hookimpl
def navcore_graph_removed(graph):
    graph.extensions.pop(_KEY, None)


@navcore.hookimpl
def navcore_graph_updated(world, graph_id, graph, dirty):
    h = graph.extensions.get(_KEY)
    if h is None:
        return
    changed = h.update(dirty)
    if changed.size:
        world.plugins.hook.navcore_components_changed(world=world, graph_id=graph_id,
                                                      changed_areas=changed)


@navcore.hookimpl(tryfirst=True)
def navcore_find_path(graph, request):
    # different areas: no path exists, answer without searching. On every
    # query's path, so two array loads and no method calls.
    h = graph.extensions.get(_KEY) or hierarchy_of(graph)
    hn, ha = h.hnode_of, h.harea
    if ha[hn[request.start_node]] != ha[hn[request.goal_node]]:
        return _UNREACHABLE
    return None


@navcore.hookimpl(tryfirst=True)
def navcore_reachable(graph, a, b):
    h = hierarchy_of(graph)
    same = h.area(a) == h.area(b) and h.area(a) >= 0
    if not same:
        return False
    if graph.directed:          # same weak component: only a search can tell
        return None
    return True


@navcore.hookimpl(tryfirst=True)
def navcore_reachable_many(graph, a, b):
    if graph.directed:
        return None
    h = hierarchy_of(graph)
    ok = (a >= 0) & (b >= 0)
    out = ok.copy()
    out[ok] = h.same_area(a[ok], b[ok])
    return out


@navcore.hookimpl
def navcore_areas(graph, nodes):
    return hierarchy_of(graph).areas(nodes)


@navcore.hookimpl
def navcore_nearest_reachable(graph, point, start):
    return hierarchy_of(graph).nearest_reachable(point, start)


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli
    cli.add_command(subparsers)
