"""The grid plugin's hooks: ``type: grid``, implicit A* and JPS, grid
updates, walls and moves for crowds (``surface``), grids in scenes
(rectangles of cells, pictures) and the ``navcore scen`` command."""
from __future__ import annotations

import math
import os

import numpy as np

import navcore
from navcore.plugins import forward, sample_hook
from navcore import validate
from navcore.errors import GraphError

from . import parallel, pointqueries, scen, scene_layer, search, sliced, surface, updates
from .costs import as_costs, walls
from .graph import GridGraph
from .landmarks import landmarks as build_landmarks
from .landmarks import on_update as landmarks_on_update
from .mapfile import parse_rows, read_map
from .maze import maze_cells

ALGORITHMS = ("astar", "dijkstra", "jps")
#: ``generate=`` names for ``type: grid``: (width, height, seed) -> walkable
GENERATORS = {"maze": maze_cells}


def build_grid(world, graph_id, *, map=None, passable=None, rows=None, array=None,
               generate=None, width=None, height=None, seed=None, connectivity=8,
               diagonal_cost=math.sqrt(2.0), corner_cutting=False, landmarks=None):
    """A grid of square cells; cell ``(x, y)`` is node ``y * width + x``,
    ``(0, 0)`` top-left. Exactly one of ``map``, ``rows``, ``array``,
    ``generate``.

    Parameters:
        map: path of a MovingAI ``.map`` file.
        passable: with ``map``, the map characters that are floor: MovingAI's
            ``".GS"`` by default, ``".G"`` Polyanya's rule (swamps blocked).
        rows: the map inline: a list of equal-length strings, ``.`` floor
            and ``#`` wall (MovingAI's characters too).
        array: a 2-d ``(height, width)`` array indexed ``[y, x]``: bool
            (True walkable), or a cost per cell read as python-tcod does:
            a number > 0 is the cell's cost, 0 and ``inf`` are walls,
            negative and NaN are refused.
        generate: ``"maze"``: a seeded spanning-tree maze of ``width`` x
            ``height`` rooms, drawn ``2*width+1`` x ``2*height+1`` cells.
        width: rooms per row of a generated maze.
        height: rows of rooms of a generated maze.
        seed: the generated maze's random seed.
        connectivity: 8 (moves to the diagonal neighbours too) or 4.
        diagonal_cost: the length of a diagonal move (a straight one is 1).
        corner_cutting: whether a diagonal move may pass a wall's corner
            (MovingAI's rule, the default, says no).
        landmarks: measure this many landmarks now for a stronger exact
            heuristic (``navcore_grid.landmarks``).
    """
    given = [k for k, v in (("map", map), ("rows", rows), ("array", array),
                            ("generate", generate)) if v is not None]
    if len(given) != 1:
        raise GraphError(f"a grid needs exactly one of map=, rows=, array=, generate=; "
                         f"got {', '.join(given) or 'none'}")
    if passable is not None and map is None:
        raise GraphError(f"passable={passable!r} names the passable characters of a "
                         f"MovingAI map: it goes with map=")
    # "is not None" each: comparing tuples compares an array seed= with
    # None element-wise, whose truth numpy refuses (a raw ValueError)
    if generate is None and any(v is not None for v in (width, height, seed)):
        raise GraphError("width=, height= and seed= go with generate=\"maze\"")
    cost = None
    if generate is not None:
        validate.choice(generate, sorted(GENERATORS), "generator", GraphError)
        if width is None or height is None:
            raise GraphError(f"generate={generate!r} needs width= and height= (in rooms)")
        walkable = GENERATORS[generate](width, height, seed)
    elif map is not None:
        if not isinstance(map, (str, os.PathLike)):
            raise GraphError(f"map must be the path of a MovingAI .map file, got {map!r}")
        walkable = read_map(map, passable=passable)
    elif rows is not None:
        walkable = parse_rows(rows)
    else:
        try:
            arr = np.asarray(array)
        except (TypeError, ValueError):       # ragged rows, or no numbers at all
            raise GraphError("array must be a 2-d array with rows of equal length "
                             "(bool walkable, or numeric cost)") from None
        if arr.ndim != 2 or arr.size == 0:
            raise GraphError(f"array must be a non-empty 2-d array, got shape {arr.shape}")
        if arr.dtype == np.bool_:
            walkable = arr
        else:
            W = arr.shape[1]
            costs = as_costs(arr, lambda i: (i % W, i // W), GraphError)
            walkable = ~walls(costs)
            cost = np.where(walkable, costs, 1.0)
    graph = GridGraph(walkable, cost, connectivity=connectivity,
                      diagonal_cost=diagonal_cost, corner_cutting=corner_cutting,
                      world=world)
    if landmarks is not None:
        build_landmarks(graph, landmarks)
    return graph


@navcore.hookimpl
def navcore_graph_types():
    return {"grid": build_grid}


def sample_graph(world, graph_id):
    """A 16x16 room with a wall, with landmarks, contracted and simplified
    (for ``navcore.warm_up``: those views' kernels, the grid's CSR view
    among them, are compiled too)."""
    from navcore_csr import contract, simplify
    free = np.ones((16, 16), dtype=bool)
    free[4:12, 8] = False
    graph = world.add_graph(graph_id, type="grid", array=free)
    build_landmarks(graph, 2)
    contract(graph)
    simplify(graph)
    return graph


navcore_sample_graph = sample_hook("grid", sample_graph)


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_algorithms(graph):
    return list(ALGORITHMS)


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_find_path(graph, request):
    algo = request.algorithm
    s, t = request.start_node, request.goal_node
    if algo == "auto":
        if search.jps_applies(graph):
            return search.jps_query(graph, s, t)
        return search.astar_query(graph, s, t)
    if algo == "jps":
        return search.jps_or_refuse(graph, s, t)
    if algo == "astar":
        return search.astar_query(graph, s, t)
    if algo == "dijkstra":
        return search.astar_query(graph, s, t, heuristic=False, algorithm="dijkstra")
    return None


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_begin_search(world, graph, request):
    return sliced.begin(world, graph, request)


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_find_paths(graph, batch):
    search.grid_find_paths(graph, batch)


navcore_path_costs = forward(search.grid_path_costs, GridGraph)
navcore_closed_nodes = forward(search.closed_nodes, GridGraph)


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_graph_updated(graph, dirty):
    landmarks_on_update(graph, dirty)


@navcore.hookimpl
@navcore.for_graphs(GridGraph)
def navcore_warm_up(world, graph):
    workers = getattr(world, "workers", 0)
    search.warm_up(graph)
    pointqueries.warm_up(graph)
    surface.warm_up(graph)
    # the scheduler's parallel rounds (PathBatch.threads = workers)
    parallel.warm_up(graph, workers)
    if not search.jps_applies(graph):
        # an update that evens the costs out makes JPS serve this grid, in
        # a tick: its kernels now, on an open grid with the same moves
        twin = GridGraph(np.ones((8, 8), dtype=bool), connectivity=graph.connectivity,
                         diagonal_cost=graph.diagonal_cost,
                         corner_cutting=graph.corner_cutting)
        if search.jps_applies(twin):
            search.warm_up(twin)
            parallel.warm_up(twin, workers)


# raycast, random and nearest points (``pointqueries``)
navcore_raycast = forward(pointqueries.raycast, GridGraph)
navcore_random_point_around = forward(pointqueries.random_point_around, GridGraph)
navcore_random_point = forward(pointqueries.random_point, GridGraph)
navcore_nearest_point = forward(pointqueries.nearest_point, GridGraph)


# walls and moves for crowds (``surface``)
navcore_walls = forward(surface.walls, GridGraph)
navcore_move_along_surface = forward(surface.move_along_surface, GridGraph)


navcore_make_update = forward(updates.make_update, GridGraph)
navcore_apply_updates = forward(updates.apply_updates, GridGraph)


navcore_scene_layer = forward(scene_layer.GridSceneLayer, GridGraph)


navcore_draw_graph = forward(scene_layer.draw, GridGraph)


@navcore.hookimpl
def navcore_add_commands(subparsers):
    scen.add_command(subparsers)
