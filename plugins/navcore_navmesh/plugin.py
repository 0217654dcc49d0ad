"""The navmesh plugin's hooks: the ``navmesh`` graph type, the ``funnel``
algorithm (also what ``auto`` means on a navmesh), the locate index
following updates, and navmeshes in scenes (regions as rectangles and
polygons, pictures). Model code lives beside it (``build``, ``mesh``,
``funnel``, ``scene_layer``)."""
from __future__ import annotations

import navcore

from . import build, funnel, scene_layer
from .mesh import LOCATE_KEY, LocateIndex, NavMeshGraph


def build_navmesh(world, graph_id, *, walkable=None, obstacles=None, bounds=None,
                  map=None, agent_radius=0.0):
    """``type: navmesh``: see ``navcore_navmesh.build`` for the parameters."""
    ground = build.free_space(walkable=walkable, obstacles=obstacles, bounds=bounds,
                              map=map)
    free = build.shrink(ground, agent_radius)
    vertices, triangles = build.triangulate(free)
    graph = NavMeshGraph.from_triangles(vertices, triangles, free, world=world)
    graph.agent_radius = float(agent_radius)
    graph.ground = ground
    graph.view(LOCATE_KEY, LocateIndex)      # built here, once: every query locates
    return graph


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


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_scene_layer(world, graph_id, graph):
    return scene_layer.NavMeshSceneLayer(world, graph_id, graph)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_draw_graph(graph, canvas):
    return scene_layer.draw(graph, canvas)
