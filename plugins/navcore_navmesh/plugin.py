"""The navmesh plugin's hooks: the ``navmesh`` graph type (built in tiles,
or static and merged), the exact ``polyanya`` search (what ``auto`` means
on a navmesh) and the ``funnel``, obstacle and region updates, the derived
views following updates, walls, moves and flow fields for crowds on 2D
meshes (``surface``, ``flowfield``), navmeshes in scenes (regions as rectangles and
polygons, pictures) and the ``navcore bake`` command; on a layered (3D)
mesh the searches run in its ground projection (``layered``). Model code lives
beside it (``build``, ``tiles``, ``obstacles``, ``mesh``, ``merge``,
``polyanya``, ``funnel``, ``scene_layer``, ``meshfile`` over ``meshcheck``,
``polyanya_format`` and ``bake``, ``cli``)."""
from __future__ import annotations

import numpy as np
import shapely

import navcore
from navcore.plugins import forward, sample_hook
from navcore import validate
from navcore.graph import HEURISTICS

from . import (areafilter, build, flowfield, funnel, layered_scene, merge as merging, meshfile,
               polyanya, polygon_search, scene_layer)
from . import layered, meshqueries, sliced, surface, tiles
from . import obstacles as updates
from .mesh import LOCATE_KEY, LocateIndex, NavMeshGraph, default_snap_distance
from .tiles import TiledMesh


def build_navmesh(world, graph_id, *, walkable=None, obstacles=None, bounds=None,
                  map=None, passable=None, agent_radius=0.0, tile_size=None, merge=None,
                  snap=None, mesh=None, vertices=None, polygons=None):
    """A navigation mesh of convex polygons over 2D free space; paths are
    exact any-angle polylines (Polyanya). Free space from ``walkable``,
    ``bounds``, ``map`` less ``obstacles``, or a whole mesh from ``mesh``
    or ``vertices`` + ``polygons``.

    Parameters:
        walkable: shapely polygons (holes allowed) or ``[x, y]`` rings:
            areas one may walk.
        obstacles: polygons or rings subtracted from the free space; on a
            tiled mesh they can be moved and removed at run time.
        bounds: ``(xmin, ymin, xmax, ymax)``: a rectangle of free space
            (intersected with ``walkable`` when both are given).
        map: path of a MovingAI ``.map``: free space is the map rectangle
            less its blocked cells, y growing down.
        passable: with ``map``, the map characters that are floor: MovingAI's
            ``".GS"`` by default, ``".G"`` Polyanya's rule (swamps blocked).
        agent_radius: shrink the free space by this radius (mitre joins:
            never closer than it to a wall).
        tile_size: side of the square tiles that updates re-triangulate
            (``None``: chosen from the vertex density; 0: one static mesh).
        merge: merge triangles into convex polygons (``None``: merge meshes
            triangulated here, keep a given mesh's own polygons).
        snap: how far off the mesh a query's end may lie and still count
            as on it (default: a millionth of the mesh's size plus
            ``agent_radius``).
        mesh: path of a Polyanya ``.mesh`` (v2/v3) or a baked ``.npz``.
        vertices: ``(V, 2)`` vertex coordinates of a given mesh.
        polygons: vertex-id lists (or a ``(P, k)`` array padded with -1),
            one per convex polygon of a given mesh.

    The free space comes from ``walkable=``, ``bounds=``, ``map=`` (with
    ``passable=``, its floor characters) and ``obstacles=`` (``build``), or a mesh is given whole: ``mesh=PATH`` (a
    Polyanya ``.mesh`` or a baked ``.npz``) or ``vertices=`` with
    ``polygons=`` (``meshfile``); ``agent_radius=`` shrinks either (a given
    mesh is then triangulated again).

    ``tile_size``: a free space is triangulated in square tiles of this
    side (``None``: chosen by its vertex density, see ``tiles``), so that
    obstacles and blocked regions can come and go at run time, each update
    re-triangulating only the tiles it touches. ``tile_size=0`` builds one
    static mesh instead: no obstacle or region updates (the generic
    ``nodes=``/``walkable=`` ones still work), and somewhat fewer, larger
    polygons (none is cut at a tile border). A given mesh is static too.
    ``merge``: merge the triangles into convex polygons (``merge`` module;
    in a tiled mesh, within each tile, at build and after every update):
    fewer, larger nodes and exact searches about twice as fast
    (BENCHMARKS.md). By default (``None``) the meshes triangulated here are
    merged and a given mesh keeps its own polygons; ``True``/``False``
    merge always/never (``False``: a tiled mesh of triangles). ``snap`` sets
    ``NavMeshGraph.snap_distance`` (how far off the mesh a query's end may
    lie and still count as on it; default: a millionth of the mesh's size
    plus ``agent_radius``)."""
    # numbers, not bools or strings (True would be a radius of 1)
    agent_radius = validate.distance(agent_radius, "agent_radius")
    if tile_size is not None:
        tile_size = validate.distance(tile_size, "tile_size")
    if snap is not None:
        snap = validate.distance(snap, "snap")
    if merge is not None:
        merge = validate.boolean(merge, "merge")
    given = mesh is not None or vertices is not None or polygons is not None
    static = given or (tile_size is not None and not isinstance(tile_size, bool)
                       and tile_size == 0)
    if not static:
        # the obstacles are cut as the tiles cut obstacles added later: a
        # run-time obstacle that overlaps one of them is grown with it
        ground, free, cut = build.spaces_apart(
            walkable=walkable, obstacles=obstacles, bounds=bounds, map=map,
            passable=passable, agent_radius=agent_radius)
        build.check_vertices("the free space", shapely.get_num_coordinates(free)
                             + int(shapely.get_num_coordinates(np.array(cut, dtype=object)).sum()))
        graph = TiledMesh.build(free, tile_size, float(agent_radius), world=world,
                                merge=merge is not False, obstacles=cut)
        graph.agent_radius, graph.ground = float(agent_radius), ground
        graph.snap_distance = default_snap_distance(graph.vertices)
        baked_snap = None
    elif given:
        found, free = meshfile.given_mesh(
            mesh=mesh, vertices=vertices, polygons=polygons, agent_radius=agent_radius,
            others=dict(walkable=walkable, obstacles=obstacles, bounds=bounds, map=map,
                        passable=passable))
        vertices, start, verts = found[:3]
        ground, radius, baked_snap = found.ground, found.agent_radius, found.snap_distance
        triangulated = free is not None              # shrunk by the agent radius
    else:
        ground, free = build.spaces(walkable=walkable, obstacles=obstacles, bounds=bounds,
                                    map=map, passable=passable, agent_radius=agent_radius)
        build.check_vertices("the free space", shapely.get_num_coordinates(free))
        radius, baked_snap = float(agent_radius), None
        vertices, triangles = build.triangulate(free)
        start = np.arange(0, triangles.size + 1, 3, dtype=np.int32)
        verts = triangles.ravel()
        triangulated = True
    if static:
        if merge or (merge is None and triangulated):
            start, verts = merging.merge_polygons(vertices, start, verts)
        graph = NavMeshGraph._from_checked(vertices, start, verts, free, world=world)
        graph.agent_radius = radius
        graph.ground = ground
        graph.view(LOCATE_KEY, LocateIndex)      # built here, once: every query locates
    if snap is None:
        if baked_snap is not None:                   # a bake keeps its own
            graph.snap_distance = baked_snap
        graph.snap_distance += float(agent_radius)   # the radius shrunk by here
    else:
        graph.snap_distance = _snap_distance(snap)
    return graph


def _snap_distance(value) -> float:
    return validate.distance(value, "snap")


@navcore.hookimpl
def navcore_graph_types():
    return {"navmesh": build_navmesh}


def sample_graph(world, graph_id):
    """A yard with a pillar (for ``navcore.warm_up``)."""
    return world.add_graph(graph_id, type="navmesh", bounds=(0, 0, 20, 10),
                           obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])


navcore_sample_graph = sample_hook("navmesh", sample_graph)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_algorithms(graph):
    return [polyanya.ALGORITHM, funnel.ALGORITHM, *polygon_search.EXACT_ALIASES,
            *polygon_search.ALGORITHMS]


#: find_path options read on navmeshes: ``heuristic=`` of ``polygon_astar``
#: (the csr plugin's A* over the polygon graph); polyanya and the funnel
#: read none
QUERY_OPTIONS = {"heuristic": HEURISTICS}


#: ... and on a mesh whose polygons carry area types (a level's), the
#: area filters and costs (``areafilter``)
AREA_QUERY_OPTIONS = {**QUERY_OPTIONS, **areafilter.OPTIONS}


#: ... but not ``heuristic=`` on a mesh with off-mesh links: the polygon-graph
#: searches, its only readers, refuse such a mesh (``links.refuse``)
_LINKED = {k: v for k, v in QUERY_OPTIONS.items() if k != "heuristic"}
_AREA_LINKED = {k: v for k, v in AREA_QUERY_OPTIONS.items() if k != "heuristic"}


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_query_options(graph):
    if getattr(graph, "links", None) is not None:
        return _AREA_LINKED if areafilter.has_areas(graph) else _LINKED
    return AREA_QUERY_OPTIONS if areafilter.has_areas(graph) else QUERY_OPTIONS


#: the algorithm names polyanya answers
_EXACT = polyanya.NAMES


# tryfirst: on a navmesh "auto" (and "astar", "dijkstra") is the geometric
# path, not a walk between centroids (nor a contraction hierarchy the user
# built over them); the polygon-graph searches answer under their own names.
# It takes every argument of the hook (``world`` unused), so navcore calls it
# as it is, without an adapter between (a call less on every query)
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_find_path(world, graph, request):
    if graph.heights is not None:          # a layered (3D) mesh: searched in projection
        if request.options:
            return layered.find_path(graph, request, _filtered)
        return layered.find_path(graph, request, _answer)
    return _answer(request, graph)


navcore_closed_nodes = forward(polygon_search.closed_nodes, NavMeshGraph)


def _answer(request, graph):
    """The path ``request`` asks for on ``graph`` (ends in the plane)."""
    if request.algorithm in _EXACT:
        return polyanya.polyanya_path(graph, request)
    if request.algorithm == funnel.ALGORITHM:
        return funnel.funnel_path(graph, request)
    if request.algorithm in polygon_search.ALGORITHMS:
        return polygon_search.polygon_path(graph, request)
    if request.algorithm in polygon_search.REFUSED:
        polygon_search.refuse(graph, request)
    return None


def _filtered(request, graph):
    """``_answer`` of a request with options: through its area filter
    when it asks for one (``areafilter``)."""
    f = areafilter.resolve(graph, request.options)
    if f is None:
        return _answer(request, graph)
    refused = f.refused(request)
    if refused is not None:
        return refused
    algo = request.algorithm
    if algo in _EXACT:
        f.check_exact(request)
        return polyanya.filtered_path(graph, request, f.space())
    if algo == funnel.ALGORITHM:
        return funnel.funnel_path(graph, request, f.polygon_graph())
    if algo in polygon_search.ALGORITHMS:
        return polygon_search.polygon_path(f.polygon_graph(), request)
    _answer(request, graph)                  # the names it refuses raise there
    raise navcore.QueryError(f"algorithm {algo!r} does not read area filters; ask for "
                             f"'polyanya', 'funnel' or a polygon-graph search")


# Polyanya, the funnel and the polygon-graph searches stop midway
# (``sliced``); tryfirst, as navcore_find_path, so the csr plugin's
# searches over the polygon graph never answer a navmesh's names
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_begin_search(world, graph, request):
    if graph.heights is not None:          # on the ground plane, lifted to 3D
        return layered.begin_search(graph, request,
                                    lambda flat: _begin_flat(world, graph, flat))
    return sliced.begin(world, graph, request)


def _begin_flat(world, graph, request):
    """``sliced.begin`` through the request's area filter, if any."""
    f = areafilter.resolve(graph, request.options) if request.options else None
    if f is not None:
        refused = f.refused(request)
        if refused is not None:
            return navcore.Search.finished(graph, request, refused)
    return sliced.begin(world, graph, request, f)


# before the csr plugin's (trylast) Dijkstra over the polygon graph: exact
# path lengths between the points, as find_path measures them
@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_distance_matrix(graph, sources, targets, source_points, target_points):
    # not forward(): the points are optional there, and pluggy passes only
    # the parameters without a default
    return _lengths(polyanya.matrix_lengths, graph, sources, targets, source_points,
                    target_points)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_distance_pairs(graph, sources, targets, source_points, target_points):
    return _lengths(polyanya.pair_lengths, graph, sources, targets, source_points,
                    target_points)


def _lengths(measure, graph, *ends):
    """``measure(graph, *ends)``; on a layered mesh from its 3D ends."""
    if graph.heights is not None:
        return layered.lengths(measure, graph, *ends)
    return measure(graph, *ends)


# tryfirst, before the areas plugin's (whose distances are the 2D
# centroids'): on a layered mesh "nearest" is in 3D, to a polygon's points
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_nearest_reachable(graph, point, start):
    if graph.heights is not None:
        return layered.nearest_reachable(graph, point, start)
    return None


# a layered mesh with off-mesh links: walking and taking links (the areas
# plugin's answers count walkable geometry only, and pass on such a graph)
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_reachable(graph, a, b):
    if graph.paths_follow_edges:
        return None
    from . import links
    return bool(links.reachable_many(graph, [a], [b])[0])


@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_reachable_many(graph, a, b):
    if graph.paths_follow_edges:
        return None
    from . import links
    return links.reachable_many(graph, a, b)


# a mesh with off-mesh links: the csr plugin's isochrone searches the
# polygon graph, which has no links, so it would leave out all that only a
# link reaches; refused, as the polygon-graph searches are (``links.refuse``)
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(NavMeshGraph)
def navcore_isochrone(graph):
    if getattr(graph, "links", None) is None:
        return None
    raise navcore.QueryError(
        f"isochrone does not follow the off-mesh links of navmesh {graph.graph_id!r}: it "
        f"searches the polygon graph, which has none; find_path, distance_matrix and "
        f"reachable follow them")


# raycast, random and nearest points, 2D and layered (``meshqueries``)
navcore_raycast = forward(meshqueries.raycast, NavMeshGraph)
navcore_random_point_around = forward(meshqueries.random_point_around, NavMeshGraph)
navcore_random_point = forward(meshqueries.random_point, NavMeshGraph)
navcore_nearest_point = forward(meshqueries.nearest_point, NavMeshGraph)


# walls, moves, neighbourhoods (2D and layered meshes, ``surface``) and flow
# fields (2D meshes, ``flowfield``) for crowds
navcore_walls = forward(surface.walls, NavMeshGraph)
navcore_move_along_surface = forward(surface.move_along_surface, NavMeshGraph)
navcore_local_neighbourhood = forward(surface.local_neighbourhood, NavMeshGraph)
navcore_flow_field = forward(flowfield.flow_field, NavMeshGraph)


navcore_make_update = forward(updates.make_update, NavMeshGraph)
navcore_apply_updates = forward(updates.apply_updates, NavMeshGraph)


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_graph_updated(graph):
    # the generic updates change walkable flags and costs, never the
    # polygons: the locate index stays right (obstacle updates patch it
    # themselves), and so does the search space unless the batch replaced
    # the mesh arrays (re-triangulated tiles)
    index = graph.stored_view(LOCATE_KEY)
    if index is not None:
        index.mark_current()
    space = graph.stored_view(polyanya.SPACE_KEY)
    if space is not None and space.same_geometry():
        space.follow_walkable()
        space.mark_current()


@navcore.hookimpl
@navcore.for_graphs(NavMeshGraph)
def navcore_warm_up(graph):
    if graph.heights is not None:
        layered.warm_up(graph)
        meshqueries.warm_up(graph)
        surface.warm_up(graph)
        return
    funnel.warm_up(graph)
    polyanya.warm_up(graph)
    sliced.warm_up(graph)
    meshqueries.warm_up(graph)
    surface.warm_up(graph)
    flowfield.warm_up(graph)
    if graph.tiles is not None:
        tiles.warm_up(graph)


navcore_scene_layer = forward(layered_scene.scene_layer, NavMeshGraph)


navcore_draw_graph = forward(scene_layer.draw, NavMeshGraph)


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli              # loads with the command line only
    cli.add_command(subparsers)
