"""The roads plugin's hooks: the ``roads`` graph type (OpenStreetMap,
DIMACS, GeoJSON or arrays), its searches (``dijkstra``, ``astar``,
``bidijkstra``, ``ch``, ``cch``; ``auto`` is the customizable hierarchy
when a current one exists, then the plain one, else bidirectional), batch
distances, closures and traffic (a customizable hierarchy is customized
again after every batch), the ``navcore roads`` command and the
``traffic`` scene event. Model code lives beside it (``segments``, ``io``,
``profiles``, ``network``, ``search``, ``locate``, ``updates``, ``ch``,
``traffic``)."""
from __future__ import annotations

import numpy as np

import navcore
from navcore.plugins import forward, sample_hook
from navcore import validate

from . import cch, ch, isochrone, locate, phantoms, search, sliced, turns, updates
from .network import RoadGraph, build_road_graph
from .sources import read_sources

ALGORITHMS = ("dijkstra", "astar", "bidijkstra")


def build_roads(world, graph_id, *, osm=None, dimacs=None, coords=None, geojson=None,
                src=None, dst=None, length=None, speed=None, cost=None, positions=None,
                oneway=True, way=None, profile="car", weight="time", keep="largest_scc",
                compress=None, contract=False, max_snap=locate.DEFAULT_MAX_SNAP, turns=None,
                restrictions=True, turn_costs=False):
    """A road network: junctions are nodes, roads directed edges, points
    are (lon, lat) degrees. Exactly one source: ``osm``, ``dimacs``,
    ``geojson`` or the arrays ``src``/``dst`` (with ``length`` and
    ``speed``, or ``cost``).

    Parameters:
        osm: path of an OpenStreetMap extract (``.osm.pbf``, ``.osm``,
            ``.osm.gz``/``.bz2``).
        dimacs: path of a DIMACS ``.gr`` graph.
        coords: path of the DIMACS ``.co`` coordinates that go with it.
        geojson: path of a GeoJSON file of LineString roads.
        src: tail junction of each road (arrays source).
        dst: head junction of each road.
        length: each road's length in metres.
        speed: each road's speed in km/h.
        cost: each road's cost as it is (instead of length and speed).
        positions: ``(N, 2)`` (lon, lat) of the junctions.
        oneway: whether the array roads run one way only (bool or per road).
        way: an OSM-style way id per road, kept on the edges.
        profile: ``"car"``, ``"bike"``, ``"foot"`` or a dict
            (``navcore_roads.profiles``): which roads and speeds count.
        weight: ``"time"`` (seconds) or ``"distance"`` (metres).
        keep: ``"largest_scc"`` (the largest strongly connected part) or
            ``"all"``.
        compress: merge chains of degree-2 junctions into one edge
            (default for OSM and GeoJSON; DIMACS and arrays keep their ids).
        contract: build the contraction hierarchy now
            (``navcore_roads.contract``).
        max_snap: metres from the nearest open road beyond which a
            (lon, lat) end is off the graph (``invalid_start`` /
            ``invalid_goal``); ``None``: no limit.
        turns: turn rules between array roads: rows ``(from road, to
            road)`` (forbidden) or ``(from road, to road, cost)`` (extra
            cost, ``inf`` forbidden), applied where ``from`` ends and
            ``to`` starts; for GeoJSON roads the same rows by way id
            (``navcore_roads.io.restrictions``).
        restrictions: read an OSM file's turn restriction relations
            that bind ``profile`` (default); ``False`` ignores them.
        turn_costs: apply ``profile``'s turn costs (OSM and GeoJSON
            roads; ``navcore_roads.turn_costs``): car U-turns only at dead
            ends and turns costing up to 7.5 s by their angle (time weight);
            bike and foot have none. ``False`` (default) routes with free
            turns.

    A graph with turn rules routes over its road edges rather than its
    junctions (``navcore_roads.turns``): ``dijkstra``, ``astar``,
    ``bidijkstra`` (and ``auto``), ``ch`` and ``cch`` (``contract`` builds
    them over the edges), matrices, pairs, ``routes`` and isochrones apply
    them, between junctions and (lon, lat) points alike (points by a
    search over the edges for every algorithm).
    """
    if cost is not None and weight != "time":
        raise navcore.GraphError("cost= gives the edges' costs as they are; weight= chooses "
                                 "between time and distance for lengths and speeds only")
    turn_costs = validate.boolean(turn_costs, "turn_costs")
    if turn_costs and osm is None and geojson is None:
        raise navcore.GraphError("turn_costs=True applies the profile of osm= or geojson= "
                                 "roads; DIMACS and array roads have none (a turns= table "
                                 "gives array roads turn costs)")
    segments, default_compress, used_profile = read_sources(
        osm=osm, dimacs=dimacs, coords=coords, geojson=geojson, src=src, dst=dst,
        length=length, speed=speed, cost=cost, positions=positions, oneway=oneway,
        way=way, profile=profile, turns=turns,
        restrictions=validate.boolean(restrictions, "restrictions"))
    contract = validate.boolean(contract, "contract")
    limit = locate.max_snap(max_snap)
    graph = build_road_graph(segments, weight=weight, keep=keep,
                             compress=default_compress if compress is None else compress,
                             profile=used_profile, world=world, turn_costs=turn_costs)
    graph.max_snap = limit
    if contract:
        ch.contract(graph)
    return graph


@navcore.hookimpl
def navcore_graph_types():
    return {"roads": build_roads}


def sample_graph(world, graph_id):
    """Four blocks of two-way streets (lon, lat near Monaco), with both
    hierarchies (for ``navcore.warm_up``)."""
    from .ch import contract
    pairs = [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (0, 3), (3, 6), (1, 4), (4, 7),
             (2, 5), (5, 8)]
    src = [a for a, b in pairs] + [b for a, b in pairs]
    dst = [b for a, b in pairs] + [a for a, b in pairs]
    lonlat = np.array([(7.42 + 0.001 * (i % 3), 43.73 + 0.001 * (i // 3)) for i in range(9)])
    graph = world.add_graph(graph_id, type="roads", src=src, dst=dst, cost=np.full(24, 10.0),
                            positions=lonlat)
    contract(graph, progress=False)
    contract(graph, customizable=True)
    return graph


navcore_sample_graph = sample_hook("roads", sample_graph)


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_algorithms(graph):
    return [*ALGORITHMS, "ch", "cch"]


# tryfirst: routes carry the drawn road in ``points``; ``auto`` is a
# hierarchy while one is current (customizable first: it follows updates,
# so it is the one likely current), else the bidirectional search (the csr
# plugin's one-directional A* is slower here), and ``ch`` is the hierarchy
# ``navcore_roads.contract`` built (between phantom nodes), not the view
# ``navcore_csr.contract`` keeps. A (lon, lat)
# end is a phantom node on its road (``phantoms``).
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(RoadGraph)
def navcore_find_path(world, graph, request):
    # the hook's arguments in its order: the dispatcher calls it directly,
    # without an adapter (one call less on every road query)
    if request.algorithm == "ch" and type(request.start) is int \
            and type(request.goal) is int and graph.turns is None:
        # the common route first: junctions (checked by World.prepare_path)
        # on the current hierarchy, what the general case below does too
        view = graph.view(ch.VIEW_KEY)
        if view is not None:
            return view.route(request.start_node, request.goal_node)
    name, view = _search_of(graph, request.algorithm)
    if name is None:
        return None
    start, goal = request.start, request.goal
    if graph.turns is not None:
        if _junction(start) and _junction(goal):
            if view is not None:
                return view.route(request.start_node, request.goal_node)
            return turns.route(graph, request.start_node, request.goal_node, name)
        ends = phantoms.Route(graph, request)
        return ends.finish(name, turns.route_ends(graph, ends, name))
    if (type(start) is int or validate.is_int(start)) and \
            (type(goal) is int or validate.is_int(goal)):
        # junctions (checked by World.prepare_path): one search, no closures
        if view is not None:
            if name == "ch":               # searched and drawn in one kernel call
                return view.route(request.start_node, request.goal_node)
            return search.hierarchy_route(view, request.start_node, request.goal_node, name)
        return search.route(graph, request.start_node, request.goal_node, name)
    return phantoms.route(graph, request, *_solver(graph, name, view))


def closed_nodes(graph, request):
    """``navcore_closed_nodes``: the route ``bidijkstra`` finds (``auto``
    without a current hierarchy) and the junctions both its directions
    closed, one search between junctions or from a point's exits to the
    other's entries; None for the other searches (hierarchies, turn
    rules, and point ends that run one search per pair of junctions)."""
    name, view = _search_of(graph, request.algorithm)
    if name != "bidijkstra" or view is not None or graph.turns is not None:
        return None
    return navcore_find_path(None, graph, request), search.closed_both(graph)


navcore_closed_nodes = forward(closed_nodes, RoadGraph, tryfirst=True)


# the scheduler's batches: hierarchy routes between junctions in one pass
# of the hierarchy's many-pairs kernels; the other searches, and the routes
# from or to a point on a road, one request at a time (navcore_find_path)
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(RoadGraph)
def navcore_find_paths(graph, batch):
    name, view = _search_of(graph, batch.algorithm)
    if view is not None and graph.turns is None:
        search.hierarchy_routes(view, name, batch)
    batch.defer(batch.todo())


# every road search between junctions is stepped (``sliced``); between
# points bidijkstra is, the others (several searches) run whole
@navcore.hookimpl(tryfirst=True)
@navcore.for_graphs(RoadGraph)
def navcore_begin_search(world, graph, request):
    name, view = _search_of(graph, request.algorithm)
    if name is not None and graph.turns is None:   # under turn rules: run whole
        stepped = sliced.begin(graph, request, name,
                               _junction(request.start) and _junction(request.goal))
        if stepped is not None:
            return stepped
    return navcore.Search.whole(world, graph, request)


def _junction(where) -> bool:
    return type(where) is int or validate.is_int(where)


def _turn_distances(graph, sources, targets, source_points, target_points, as_matrix):
    """A matrix (``as_matrix``) or pairs under turn rules (``turns``):
    between junctions, or ends of which some are points (phantom nodes)."""
    if source_points is None and target_points is None:
        view = cch.current(graph) or turns.current(graph)
        if view is not None:
            return (view.matrix if as_matrix else view.pairs)(sources, targets)
        return (turns.matrix if as_matrix else turns.pairs)(graph, sources, targets)
    s_end = phantoms.ends(graph, sources, source_points, "sources")
    t_end = phantoms.ends(graph, targets, target_points, "targets")
    return (turns.matrix_ends if as_matrix else turns.pairs_ends)(graph, s_end, t_end)


def _search_of(graph, algorithm):
    """``(name, view)``: the search that answers ``algorithm`` on ``graph``,
    with the hierarchy view it runs on (``None`` for the searches without
    one); ``(None, None)`` for an algorithm the roads plugin does not
    answer. ``QueryError`` for ``ch``/``cch`` without a current hierarchy,
    the same under turn rules (``turns``: hierarchies of the edge-based
    graph, ``turns.TurnHierarchy`` and ``turn_cch.TurnCCH``)."""
    if graph.turns is not None:
        if algorithm == "cch":
            view = graph.view(cch.VIEW_KEY)
            return algorithm, cch.need_current(graph) if view is None else view
        if algorithm == "ch":
            return "ch", ch.need_view(graph, turns.VIEW_KEY, "a stale hierarchy of its "
                                      "edges (the graph changed since it was built)",
                                      "no hierarchy", "build it with navcore_roads."
                                      "contract(graph)")
        if algorithm == "auto":
            view = cch.current(graph)
            if view is not None:
                return "cch", view
            view = turns.current(graph)
            return ("ch", view) if view is not None else ("bidijkstra", None)
        return (algorithm, None) if algorithm in ALGORITHMS else (None, None)
    if algorithm == "auto":
        view = cch.current(graph)
        if view is not None:
            return "cch", view
        view = ch.current(graph)
        if view is not None:
            return "ch", view
        return "bidijkstra", None
    if algorithm == "ch":
        view = graph.view(ch.VIEW_KEY)          # current: the one lookup a route pays
        return algorithm, ch.need_current(graph) if view is None else view
    if algorithm == "cch":
        view = graph.view(cch.VIEW_KEY)
        return algorithm, cch.need_current(graph) if view is None else view
    if algorithm in ALGORITHMS:
        return algorithm, None
    return None, None


def _solver(graph, name, view):
    """``(name, route(s, t)[, seeded])`` for ``phantoms.route``: the
    junction-to-junction route of search ``name`` (``_search_of``) and
    between phantom nodes' exits and entries at once (``bidijkstra``: one
    seeded search, ``search.route_seeded``; hierarchies: the distances of
    every exit-entry pair first, then one path, ``phantoms.best_pair``)."""
    if view is not None:
        solve = view.route if name == "ch" else \
            (lambda s, t: search.hierarchy_route(view, s, t, name))
        return name, solve, phantoms.best_pair(name, solve,
                                               lambda s, t: view.query().distance(s, t))
    solve = (lambda s, t: search.route(graph, s, t, name))
    if name == "bidijkstra":            # phantoms: one search from both exits
        return name, solve, lambda *ends: search.route_seeded(graph, *ends)
    return name, solve


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_distance_matrix(world, graph, sources, targets, source_points, target_points):
    return _distances(world, graph, sources, targets, source_points, target_points,
                      phantoms.matrix, _hierarchy_matrix,
                      None)        # the csr plugin's parallel Dijkstra per row answers


def _distances(world, graph, sources, targets, source_points, target_points, by_points,
               by_hierarchy, without):
    """What the distance hooks answer: ``by_points`` (``phantoms``) when
    an end is a point, else ``by_hierarchy(graph, query, sources,
    targets)`` on the current hierarchy (customizable first), else
    ``without(graph, sources, targets)`` (``None``: another plugin's).
    Under turn rules: ``turns.matrix`` or ``turns.pairs`` (``by_points``
    says which), between junctions only."""
    if graph.turns is not None:
        return _turn_distances(graph, sources, targets, source_points, target_points,
                               by_points is phantoms.matrix)
    if source_points is not None or target_points is not None:
        return by_points(world, graph, sources, targets, source_points, target_points)
    view = cch.current(graph) or ch.current(graph)
    if view is None:
        return None if without is None else without(graph, sources, targets)
    return by_hierarchy(graph, view.query(), sources, targets)


def _hierarchy_matrix(graph, query, sources, targets):
    out = query.matrix(sources, targets)
    walk = graph.walkable           # the hierarchy closed a blocked junction's roads,
    out[~walk[sources]] = np.inf    # not the junction: from and to itself it is 0
    out[:, ~walk[targets]] = np.inf
    return out


def _hierarchy_pairs(graph, query, sources, targets):
    out = query.distances(sources, targets)
    out[~(graph.walkable[sources] & graph.walkable[targets])] = np.inf
    return out


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_matrix_search_side(graph, num_sources, num_targets):
    if cch.current(graph) is None and ch.current(graph) is None:
        return None        # the csr plugin's Dijkstra per row (or column) answers
    # buckets: an upward search from every source and every target; blocks
    # cut along the larger side repeat only the smaller side's searches
    return "sources" if num_sources >= num_targets else "targets"


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_distance_pairs(world, graph, sources, targets, source_points, target_points):
    return _distances(world, graph, sources, targets, source_points, target_points,
                      phantoms.pairs, _hierarchy_pairs, search.distance_pairs)


# sources given as points: phantom nodes on their roads (junction ids: the
# csr plugin's bounded Dijkstra answers)
navcore_isochrone = forward(isochrone.isochrone, RoadGraph)
navcore_make_update = forward(updates.make_update, RoadGraph)
navcore_apply_updates = forward(updates.apply_updates, RoadGraph)


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_graph_updated(world, graph):
    # updates re-weight roads, never move nodes: the locate index stays,
    # and learns which segments are closed now
    index = graph.stored_view(locate.VIEW_KEY)
    if index is not None:
        index.refresh()
    # nor change the topology: a customizable hierarchy keeps its order and
    # supergraph and is customized again for the new costs (inline, or as a
    # scheduler job when it would not fit the frame budget)
    cch.follow(graph, world)


# a customizable hierarchy customized by a scheduler job is swapped in here,
# at the start of a tick, so a frame answers from one metric throughout
@navcore.hookimpl
def navcore_frame_start(world):
    for graph in world.graphs.values():
        if isinstance(graph, RoadGraph):
            cch.adopt(graph)


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_warm_up(graph):
    search.warm_up(graph)
    sliced.warm_up(graph)
    isochrone.warm_up(graph)
    turns.warm_up(graph)


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli              # loads with the command line only
    cli.add_command(subparsers)


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_scene_layer(world, graph_id, graph):
    from . import scene_layer
    return scene_layer.RoadSceneLayer(world, graph_id, graph)


@navcore.hookimpl
@navcore.for_graphs(RoadGraph)
def navcore_draw_graph(graph, canvas):
    from . import scene_layer
    return scene_layer.draw(graph, canvas)


@navcore.hookimpl
def navcore_scene_event_kinds():
    # roads close, slow down and reopen in scenes (``traffic``)
    from . import traffic
    return {"traffic": traffic.TrafficKind()}
