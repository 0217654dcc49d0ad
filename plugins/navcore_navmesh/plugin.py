"""The navmesh plugin's hooks: the ``navmesh`` graph type (built in
tiles), the ``funnel`` algorithm (also what ``auto`` means on a navmesh),
obstacle and region updates, and the locate index following updates.
Model code lives beside it (``build``, ``tiles``, ``obstacles``, ``mesh``,
``funnel``)."""
from __future__ import annotations

import navcore

from . import build, funnel
from . import obstacles as updates
from .mesh import LOCATE_KEY, NavMeshGraph
from . import tiles
from .tiles import TiledMesh


def build_navmesh(world, graph_id, *, walkable=None, obstacles=None, bounds=None,
                  map=None, agent_radius=0.0, tile_size=None):
    """``type: navmesh``: see ``navcore_navmesh.build`` for the free-space
    parameters and ``navcore_navmesh.tiles`` for ``tile_size`` (world units;
    ``None`` picks one by the free space's vertex density)."""
    free = build.free_space(walkable=walkable, obstacles=obstacles, bounds=bounds,
                            map=map, agent_radius=agent_radius)
    # the locate index is built with it, once: every query locates
    return TiledMesh.build(free, tile_size, float(agent_radius), world=world)


@navcore.hookimpl
def navcore_graph_types():
    return {"navmesh": build_navmesh}


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_algorithms(graph):
    return [funnel.ALGORITHM]


# tryfirst: on a navmesh "auto" is the geometric path, not a walk between
# centroids (and not a contraction hierarchy the user built over them)
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_find_path(graph, request):
    if request.algorithm in ("auto", funnel.ALGORITHM):
        return funnel.funnel_path(graph, request)
    return None           # astar / dijkstra / bfs: the csr plugin's, over polygons


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_make_update(world, graph, params):
    return updates.make_update(world, graph, params)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_apply_updates(world, graph, batch):
    return updates.apply_updates(world, graph, batch)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_graph_updated(graph):
    # the generic updates change walkable flags and costs, never the
    # polygons: the locate index stays right
    index = graph.stored_view(LOCATE_KEY)
    if index is not None:
        index.mark_current()


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_warm_up(graph):
    funnel.warm_up(graph)
    tiles.warm_up(graph)
