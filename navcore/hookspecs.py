"""The plugin contract: every hook navcore calls, and when.

This file is the plugin author's manual. A plugin is any object (module,
class instance) whose functions are marked with ``navcore.hookimpl`` and
named after one of the hooks below; register it at run time with
``world.plugins.register(obj)`` or ship it as an entry point in the
``navcore`` group::

    [project.entry-points.navcore]
    hexgrid = "my_package.navcore_plugin"

Rules that hold for every hook:

* Hooks are called at coarse points only (a graph built, a batch of updates
  applied, a query, a frame), never per node or per edge. Per-node work
  belongs in vectorised numpy or numba kernels inside the implementation.
* An implementation may accept any subset of a hook's arguments, by name.
* ``firstresult`` hooks stop at the first implementation that returns
  something other than ``None``; return ``None`` to pass the call on.
  Mark specialised implementations ``tryfirst=True`` and generic fallbacks
  ``trylast=True`` (the csr plugin's generic search is ``trylast``).
* pluggy runs implementations of one rank in reverse registration order
  (the last registered ``tryfirst`` one first), and registration order is
  the entry points' names, so ``tryfirst`` alone cannot put an answer
  before every search. A cheap answer that must come first (O(1), or
  vectorised over a batch; never a search) is marked
  ``@navcore.precheck`` under ``@navcore.hookimpl``: the registry keeps
  a hook's pre-checks before all its other implementations (after its
  wrappers), whichever plugin was registered last. The areas plugin's
  "start and goal in different areas: unreachable" is the pre-check of
  ``navcore_find_path`` and ``navcore_find_paths``.
* An implementation that serves only some graphs says so once, with
  ``@navcore.for_graphs(MyGraph)`` under ``@navcore.hookimpl``: for other
  graphs it is skipped (the call passes on), with no ``isinstance`` in it.
* An implementation that rejects its input raises a ``navcore.NavError``
  subclass (``navcore.validate`` has the common checks) and leaves the
  graph unchanged.

Graph ids are whatever hashable the user chose (usually a string); a
``graph`` argument is the ``navcore.NavGraph`` that id names.

How to write a backend (a new graph type)
-----------------------------------------
``examples/navcore_hexgrid`` is a complete one in about a hundred lines;
``navcore.testing`` checks yours (run its ``check_graph_type`` in your tests).

1. **A builder**, announced by ``navcore_graph_types``:
   ``build(world, graph_id, **params) -> NavGraph``. It validates its
   parameters (``GraphError``; ``MapFormatError`` with path and line for
   files). Unknown parameters are refused by ``World.add_graph`` itself.
2. **A NavGraph** (subclass it to add your own fast paths). What it must
   supply:

   * ``num_nodes`` and the **CSR view** ``graph.csr`` (``offsets``,
     ``targets``, float64 ``cost`` with ``inf`` for a closed edge), built
     through the storage hook: ``NavGraph.from_edges(src, dst, cost, ...,
     world=world)`` does that. It may be made lazily (grids build it on
     first use) but must always be obtainable: areas, the generic searches,
     simplification and contraction hierarchies work on it alone.
   * ``walkable``: a bool array, one entry per node; a blocked node is
     never entered.
   * ``positions`` (float64 ``(N, 2)`` or ``(N, 3)``) or ``None`` (then
     nodes are addressed by id only and ``has_positions()`` is False).
   * ``heuristic``: ``"euclidean"``, ``"manhattan"``, ``"octile"`` or
     ``"zero"``; the generic A* scales it by the cheapest edge per unit of
     distance, so any consistent distance is exact.
   * ``locate(point) -> node`` (``-1`` outside the graph); the base class
     answers with the nearest node by position. ``node_of`` turns ids and
     points into node ids and is what every query calls. A graph with a
     spatial index may also override ``locate_many(points)`` and set
     ``vector_locate = True``: ``World`` then hands it whole ``(k, 2)``
     point arrays (matrix sources, pairs) in one call.
   * ``directed``: ``True`` unless every edge exists both ways.
3. **Updates**, if the graph can change: ``navcore_make_update``
   validates ``World.update(**params)`` into a ``navcore.Update``;
   ``navcore_apply_updates`` applies a batch as array work, keeps the CSR
   view consistent, bumps ``graph.version`` (derived views go stale) and
   returns exactly the **dirty nodes**: every node whose walkability
   changed or that has an incident edge (in or out) whose cost changed.
   A batch may add nodes (a navmesh re-triangulating a tile around a new
   obstacle): ``num_nodes`` may grow, never shrink, and every new id is
   dirty. Anything sized by ``num_nodes`` follows: per-thread scratch
   (``graph.scratch`` makes it again), the hierarchy (it grows its arrays),
   derived views (rebuilt with the version). A node that is gone becomes
   a blocked id without edges in the batch that removes it and is dirty
   there, so a stored path through it costs ``inf``; a later batch may
   give the id to a new node (navmesh tiles reuse retired polygon slots,
   and mark them dirty again), so a path is checked against the batches
   since it was planned, as the scheduler's re-planning and
   ``World.is_current`` (the graph's log of dirty nodes per batch,
   ``NavGraph.dirty_since``) do.
   Without these hooks the csr plugin's generic updates apply
   (``nodes=``/``edges=`` with ``walkable=``/``cost=``).
4. **Queries**, optionally: a specialised ``navcore_find_path`` (and
   ``navcore_path_costs``, ``navcore_distance_matrix``,
   ``navcore_distance_pairs``) for your graphs; a result's ``points`` may
   be a denser polyline than one point per node (a road drawn between
   junctions) as long as it passes through its nodes' points in order;
   list extra ``algorithm=`` names in ``navcore_algorithms``. Everything
   you do not answer falls back to the generic CSR kernels (A*, Dijkstra,
   BFS, path costs, distance matrices, isochrones), and areas, ``reachable`` and
   ``nearest_reachable`` come from the areas plugin for every graph.
5. **Derived structures** (an index, a hierarchy) are ``navcore.DerivedView``
   objects kept with ``graph.view(key, build)``: never used stale, built
   by an explicit call when they only speed queries up (see
   ``navcore/views.py``). ``navcore_apply_updates`` bumps ``graph.version``
   exactly once per batch: views follow the graph batch by batch by it.
6. **Kernels** on the hot path are ``@njit(cache=True, nogil=True)``
   functions over numpy arrays, with per-thread scratch from
   ``graph.scratch(key, factory)``; load them in ``navcore_warm_up``.
7. **Scenes**, optionally. Without anything more, agents of a scene walk
   on your graph between points or node ids. For doors, block/unblock/cost
   events, crowds drawn from regions and moving obstacles, return a
   ``navcore.SceneLayer`` subclass from ``navcore_scene_layer`` (it says
   what a region is on your graphs and how a change reaches them; see
   ``navcore/scene_layer.py``); for pictures (``navcore.draw`` and a
   scene's), draw the map with numpy in ``navcore_draw_graph``; without
   it, a graph with node positions is drawn as nodes and edges by the csr
   plugin. The scenes plugin itself knows no geometry, and neither hook
   imports it (nor YAML, nor Pillow).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Hashable, Sequence

import pluggy

if TYPE_CHECKING:          # for the annotations only: no import cycle at run time
    import numpy as np

    from .graph import NavGraph
    from .isochrones import Isochrone
    from .search import Search
    from .types import (FrameStats, MeshPoint, PathBatch, PathRequest, PathResult,
                        RaycastHit, Update)
    from .world import World

hookspec = pluggy.HookspecMarker("navcore")


# -- graph types -------------------------------------------------------------
# A backend announces the ``type:`` names it builds; observers hear when a
# graph comes and goes.

@hookspec
def navcore_graph_types() -> dict[str, Callable[..., NavGraph]] | None:
    """Announce the graph ``type:`` names this plugin can build.

    Return a dict mapping a type name to a builder
    ``build(world, graph_id, **params) -> NavGraph``. The builder validates
    its parameters and raises ``GraphError`` (or ``MapFormatError`` for
    files) on bad input. Called when a plugin is registered (to detect two
    plugins claiming one name, which is a ``PluginError`` naming both) and
    when ``World.add_graph`` resolves a type. Not firstresult: every
    plugin's dict is collected.
    """


@hookspec
def navcore_graph_built(world: World, graph_id: Hashable, graph: NavGraph) -> None:
    """A graph was built and added to ``world`` under ``graph_id``.

    Observers attach per-graph state here: derived structures as views
    (``graph.set_view(key, view)``; the areas plugin builds the areas),
    anything else in ``graph.extensions[plugin_name]``. Called once per
    ``add_graph``, after the builder returned and before ``add_graph``
    returns. No return value.
    """


@hookspec
def navcore_graph_removed(world: World, graph_id: Hashable, graph: NavGraph) -> None:
    """``graph_id`` was removed from ``world``; drop per-graph state.

    Called once per ``World.remove_graph``. No return value.
    """


# -- storage -----------------------------------------------------------------
# The CSR arrays every graph hands out (the csr plugin answers).

@hookspec(firstresult=True)
def navcore_storage_build(src: np.ndarray | None, dst: np.ndarray, data: dict[str, np.ndarray],
                          num_nodes: int, options: dict) -> Any:
    """Build the adjacency storage for an edge list.

    ``src`` and ``dst`` are int arrays of equal length (already validated:
    ids in ``0..num_nodes-1``); ``data`` is a dict of per-edge arrays of the
    same length (``"cost"`` among them, float64); ``options`` is a dict with
    ``sort`` (sort each node's neighbours by id), ``dedup`` (drop repeated
    ``(src, dst)`` pairs, the first edge wins) and ``offsets``: ``None``,
    or the int64 CSR offsets of edges that already come in CSR order
    (a backend's own kernel made them, sorted and distinct as ``sort`` and
    ``dedup`` say); then ``src`` is ``None`` (node ``u``'s edges are
    ``offsets[u]:offsets[u+1]``) and nothing needs sorting. Backends call
    it through ``navcore.graph.build_storage``. Return an object with the
    CSR interface of ``navcore_csr.CSR`` (``offsets``, ``targets``,
    ``data``, ``cost``, ``num_nodes``, ``num_edges``, ``neighbors(u)``,
    ``reverse()``). Firstresult: the csr plugin answers unless another
    storage plugin answers first. Called once per graph build.
    """


# -- queries -----------------------------------------------------------------
# Firstresult hooks: specialised planners (``tryfirst`` or default) before
# the csr plugin's generic kernels (``trylast``), which answer for any graph.

@hookspec
def navcore_algorithms(world: World, graph: NavGraph) -> list[str] | None:
    """List the ``algorithm=`` names this plugin can answer for ``graph``.

    Return a list of strings (empty or ``None`` when the plugin does not
    handle this graph). Used to validate ``find_path(..., algorithm=...)``
    and to name the choices in the error. Not firstresult: names from all
    plugins are merged. Called per query only when the algorithm is not
    ``"auto"`` and is unknown to the cache, and by ``navcore plugins``.
    """


@hookspec
def navcore_query_options(world: World, graph: NavGraph) -> dict | list[str] | None:
    """Declare the keyword options (``find_path(..., heuristic="zero")``)
    this plugin reads from ``PathRequest.options`` for ``graph``.

    Answer only for the graph types whose searches read them (mark the
    implementation ``@navcore.for_graphs(YourGraph)``): a dict mapping each
    option to its allowed values (a tuple; ``None`` when any value may
    come and the plugin checks it where it reads it), a list of names
    (any value), or ``None``. The csr plugin declares ``heuristic`` for
    the csr type only: a backend whose graphs the csr plugin's A* searches
    (a navmesh's ``astar`` over polygons, the example hexgrid) declares
    it for its own graph class; grids and roads, whose own searches read
    no option, declare nothing.

    Not firstresult: the answers of all plugins are merged
    (``navcore.validate.query_options``), and ``find_path`` refuses any
    other keyword, and a declared one with a value outside its allowed
    ones, with a ``QueryError`` that lists what the graph reads (a typo
    such as ``heuristc=``, or ``heuristic=`` on a grid, would otherwise be
    ignored). Called when a query passes options, once per graph and
    plugin set (cached like ``navcore_algorithms``). The conformance kit
    checks every graph type refuses what it does not declare.
    """


@hookspec(firstresult=True)
def navcore_find_path(world: World, graph: NavGraph, request: PathRequest) -> PathResult | None:
    """Answer a single path query, or return ``None`` to pass it on.

    ``request`` is a ``navcore.PathRequest`` whose ``start_node`` and
    ``goal_node`` are already resolved, in range and walkable.
    Return a ``navcore.PathResult``. Pre-checks (``navcore.precheck``:
    the areas plugin's O(1) unreachable answer for ends in different
    areas; they pass on a graph whose ``paths_follow_edges`` is False: a
    level with off-mesh links) run before any search, whatever the
    registration order; specialised planners (grid JPS, road contraction hierarchies, the
    navmesh's Polyanya) are ``tryfirst`` or default; the csr plugin's
    generic A*/Dijkstra is ``trylast`` and answers for every graph.
    Return a new ``PathResult`` per call, never one shared between
    queries: ``World`` writes on it the graph's version before the search
    (``PathResult.version``, for ``World.is_current``); the conformance
    kit checks it. A path that takes off-mesh links says which and where
    in ``PathResult.links`` (set it only then). Called once per query, on the
    thread that runs the query; implementations must use per-thread scratch
    (``graph.scratch``) and must not mutate the graph.
    """


@hookspec
def navcore_find_paths(world: World, graph: NavGraph, batch: PathBatch) -> None:
    """Answer many path queries at once: the open entries of ``batch``
    (a ``navcore.PathBatch``: int32 ``starts`` and ``goals``, resolved,
    in range and walkable, and one ``algorithm`` for all).

    Answer the entries ``navcore_find_path`` would answer, exactly as it
    would (same status, cost, nodes, points, ``expanded`` and algorithm
    name): ``batch.answer(index, cost, expanded, nodes, offsets, points,
    algorithm[, point_offsets])`` with the paths one after another in flat
    arrays (points one per node, or by their own offsets; the
    batch keeps those arrays, not copies: results are made from them when
    a handle is read, maybe frames later, so hand it arrays you never
    change again), or ``batch.answer_status(index, status, algorithm)``
    for answers without a path (``unreachable``, known without a search).
    ``batch.nodes_given`` says which requests named both ends by node id
    (a point end may need an answer other than its node's).
    Leave the entries you do not answer open (the next implementation
    sees them), or
    ``batch.defer(index)`` those your ``navcore_find_path`` would answer one
    at a time. (The results made from the batch carry ``batch.version``,
    the graph's version the caller read before the hook.) Look only at ``batch.todo()``. No return value: every
    implementation runs, in pluggy's order, pre-checks first
    (``navcore.precheck``: the areas plugin answers pairs in different
    areas ``unreachable`` before any backend searches the rest, whatever
    the registration order); what is still open afterwards is
    served one request at a time through ``navcore_find_path``.

    Called by the scheduler plugin when it serves queued path requests:
    a round's requests of one graph and algorithm as one batch, on the
    thread that calls ``tick``, so an implementation should answer it in
    one nogil kernel call over arrays (per-thread scratch from
    ``graph.scratch``; no Python per entry). With workers, ``batch.threads``
    is the worker count (1 for a round with little search work): the
    implementation may search the batch on that many threads at once, in
    one parallel kernel call (the grid's ``prange`` over per-thread
    scratch; it holds a process-wide lock around the call while numba's
    threading layer may be ``workqueue``, which aborts on concurrent
    parallel calls from two Python threads). Ignoring ``threads`` is correct,
    only serial. Entries left open or deferred are served one request at a
    time on the worker threads. Without the batch path (see below) the
    requests go to ``navcore_find_path`` in chunks on the worker threads.
    Batches are used for a graph only when every plugin whose
    ``navcore_find_path`` serves that graph (``for_graphs`` says which)
    implements this hook too, no ``navcore_find_path`` wrapper and no
    ``navcore_postprocess_path`` is registered; otherwise the scheduler
    serves each request through ``navcore_find_path``, as
    ``World.find_path`` does. Must not mutate the graph.
    """


@hookspec(firstresult=True)
def navcore_begin_search(world: World, graph: NavGraph, request: PathRequest) -> Search | None:
    """Begin ``request`` as a search that runs a slice at a time
    (``World.begin_search``; ``find_path`` with ``max_nodes``), or return
    ``None`` to pass it on.

    Return a ``navcore.Search`` (``navcore/search.py`` says what a
    subclass implements) whose finished result equals what this plugin's
    ``navcore_find_path`` answers for ``request`` (same status, path,
    cost and ``expanded``) however it is stepped, keeping its state in
    memory of its own (not the thread's scratch: steps may come from
    different threads, and many searches may be under way). A search that
    cannot stop midway is ``Search.whole(world, graph, request)``. Same
    arguments and order as ``navcore_find_path`` (the areas plugin's O(1)
    unreachable answer is this hook's pre-check too: ``navcore.precheck``).
    The search writes on its results the graph version it ran on
    (``PathResult.version``; ``Search._stamped``).

    Called by ``World.begin_search`` only when every plugin whose
    ``navcore_find_path`` serves the graph implements it too and no
    wrapper or ``navcore_postprocess_path`` is registered; otherwise the
    search is ``Search.whole``. Must not mutate the graph.
    """


@hookspec(firstresult=True)
def navcore_closed_nodes(world: World, graph: NavGraph,
                         request: PathRequest) -> tuple[PathResult, Any] | None:
    """Search ``request`` as this plugin's ``navcore_find_path`` would and
    return ``(result, closed)``: that search's ``PathResult`` and what it
    closed, one entry per expansion counted in ``result.expanded``, read
    from the search's scratch right after it, on this thread: for a
    search over graph nodes, the node ids (int32); for a search over
    intervals of mesh edges (Polyanya), a ``navcore.SearchIntervals``
    (each interval as a segment on its edge, and the polygons on either
    side). ``None`` when this plugin does not search ``request`` that way
    (another algorithm, or one that keeps no record of what it closed:
    raise a ``QueryError`` naming the algorithms that do, to say so).

    Called by ``World.closed_nodes`` (the viewer's "search nodes" layer),
    after ``find_path`` answered the same request and only when that
    search expanded something (an O(1) pre-check's answer closes nothing).
    ``World`` compares the two results (status, cost, nodes, expanded) and
    refuses with a ``QueryError`` when they differ, so an implementation
    that is asked about a request another plugin answered (a contraction
    hierarchy that ``auto`` used) is never taken for it. Same ends and
    threading rules as ``navcore_find_path``; a debugging query, not for
    frames. Must not mutate the graph.
    """


@hookspec(firstresult=True)
def navcore_postprocess_path(world: World, graph: NavGraph, request: PathRequest,
                             result: PathResult) -> PathResult | None:
    """Improve a found path (string pulling, smoothing), or return ``None``.

    Called once per query whose ``result`` is ``found``, after
    ``navcore_find_path``. Return a new ``PathResult`` to replace it.
    Firstresult: the first plugin that returns a result wins.
    """


@hookspec(firstresult=True)
def navcore_path_costs(world: World, graph: NavGraph, nodes: np.ndarray,
                       starts: np.ndarray) -> np.ndarray | None:
    """Cost of walking each of several paths on ``graph`` as it is now.

    ``nodes`` (int32) holds the paths one after another: path ``i`` is
    ``nodes[starts[i]:starts[i + 1]]`` (``starts`` int64, one entry more
    than there are paths). Return a float64 array with one cost per path:
    the sum of its moves' current costs, ``inf`` when a node is blocked or
    a move is no longer possible (an edge closed, a diagonal that would now
    cut a corner); a one-node path costs 0 when its node is walkable.
    Called by ``World.path_costs`` and by the scheduler after each applied
    batch, for the paths the batch came near, so that only paths that got
    dearer or broken are planned again. Firstresult: backends with implicit
    moves (grids) answer for their graphs; the csr plugin answers for any
    graph from its CSR view (``trylast``).
    """


@hookspec(firstresult=True)
def navcore_reachable(world: World, graph: NavGraph, a: int, b: int) -> bool | None:
    """Return whether node ``b`` can be reached from node ``a``, or ``None``.

    ``a`` and ``b`` are resolved node ids in range. The areas plugin
    answers in O(1) from its area ids; the csr plugin answers last with a
    search. Firstresult. Called once per ``World.reachable`` call.
    """


@hookspec(firstresult=True)
def navcore_reachable_many(world: World, graph: NavGraph, a: np.ndarray,
                           b: np.ndarray) -> np.ndarray | None:
    """Return a bool array: ``out[i]`` is whether ``b[i]`` can be reached
    from ``a[i]``, or ``None`` to pass the call on.

    ``a`` and ``b`` are int32 arrays of equal length, ids in range (``-1``
    stands for a point outside the graph and is never reachable).
    The areas plugin answers with one vectorised area comparison; when
    no plugin answers, ``World.reachable_many`` asks ``navcore_reachable``
    pair by pair. Firstresult. Called once per ``World.reachable_many``.
    """


@hookspec(firstresult=True)
def navcore_areas(world: World, graph: NavGraph, nodes: np.ndarray | None) -> np.ndarray | None:
    """Return the int32 area (connected component) id of each node in the
    int32 array ``nodes``, or of every node when ``nodes`` is ``None``;
    ``-1`` for blocked nodes. Or ``None`` to pass the call on.

    Nodes share an id exactly when they are connected (for directed
    graphs: weakly connected). Firstresult; the areas plugin answers.
    Called once per ``World.area`` / ``World.areas`` call.
    """


@hookspec(firstresult=True)
def navcore_nearest_reachable(world: World, graph: NavGraph, point: Sequence[float],
                              start: int) -> int | None:
    """Return the id of the walkable node closest to ``point`` that node
    ``start`` can reach (``-1`` when there is none), or ``None``.

    This is how an agent picks its end node when the clicked point lies
    in a wall or on an island. ``start`` is a resolved, in-range node id.
    Firstresult; the areas plugin answers. Called once per
    ``World.nearest_reachable`` call.
    """


@hookspec(firstresult=True)
def navcore_distance_matrix(world: World, graph: NavGraph, sources: np.ndarray,
                            targets: np.ndarray, source_points: np.ndarray | None,
                            target_points: np.ndarray | None) -> np.ndarray | None:
    """Return the ``(len(sources), len(targets))`` float64 matrix of
    shortest path costs (``inf`` where unreachable), or ``None``.

    ``sources`` and ``targets`` are validated int32 node id arrays (points
    already located). ``source_points``/``target_points`` are what the
    caller gave as points: float64 ``(k, 2)`` rows, NaN in the rows given
    as node ids, or ``None`` when every entry was a node id. A backend
    whose costs depend on where in or between nodes a point lies reads
    them (a navmesh: exact path lengths between the points, a polygon id
    standing for its centroid; a road network: phantom nodes on the roads
    the points snap onto, a junction id standing for its position); the
    graph searches ignore them. Firstresult: road graphs answer with
    contraction-hierarchy buckets, navmeshes with one exact any-angle
    search per pair, the csr plugin answers last with one Dijkstra per
    source (or per target on the reversed graph when targets are fewer).
    Called once per ``World.distance_matrix`` call.
    """


@hookspec(firstresult=True)
def navcore_matrix_search_side(world: World, graph: NavGraph, num_sources: int,
                               num_targets: int) -> str | None:
    """Say from which side ``navcore_distance_matrix`` runs its searches
    on ``graph`` for a ``num_sources x num_targets`` matrix: ``"sources"``
    (one search per source gives a row; the csr plugin's Dijkstra) or
    ``"targets"`` (one per target, over the reversed edges, gives a
    column). Or ``None`` to pass.

    Callers that cut a matrix into blocks (``navcore_dask``'s tiles) cut
    this side and keep the other whole: no search runs twice, and each
    block searches in the direction the whole matrix would, so its costs
    are the same floats to the last bit. A plugin whose matrix searches
    from both sides (a hierarchy's buckets: an upward search from every
    source and every target) names the side with more searches, so blocks
    repeat only the smaller side's. Answer for the graphs whose matrices
    you answer. Firstresult: the csr plugin answers last with its own
    rule (``"targets"`` when the graph is directed and targets are
    fewer). Called by ``navcore_dask.distance_matrix`` once per job, on
    the client, before any tile is cut.
    """


@hookspec(firstresult=True)
def navcore_distance_pairs(world: World, graph: NavGraph, sources: np.ndarray,
                           targets: np.ndarray, source_points: np.ndarray | None,
                           target_points: np.ndarray | None) -> np.ndarray | None:
    """Return float64 ``out[i]``, the shortest path cost from
    ``sources[i]`` to ``targets[i]`` (``inf`` where unreachable), or
    ``None``.

    ``sources`` and ``targets`` are validated int32 node id arrays of one
    length; ``source_points``/``target_points`` the points the caller gave,
    as in ``navcore_distance_matrix``. Firstresult: road graphs answer with
    one hierarchy query per pair, or bidirectional searches, over both
    cores; navmeshes with the exact any-angle search, all pairs in one
    numba call; the csr plugin answers last with one early-exit Dijkstra
    per distinct source. Called once per ``World.distance_pairs`` call: a
    batch answers many routes without a Python loop per pair.
    """



@hookspec(firstresult=True)
def navcore_isochrone(world: World, graph: NavGraph, sources: np.ndarray,
                      source_costs: np.ndarray, source_points: np.ndarray | None,
                      limits: np.ndarray) -> Isochrone | None:
    """Return the ``navcore.Isochrone`` of ``limits`` from ``sources``:
    every node whose least cost from any source is at most ``limits[-1]``
    (with its cost and band), and the pieces of edges reached; or
    ``None`` to pass.

    ``sources`` is a validated int32 node id array (points already
    located, at least one entry); ``source_costs`` float64, the cost
    already spent at each source (0 from ``World.isochrone``; a backend
    that seeds the search from points, a road network from the junctions
    around a point on a road, asks this hook again with those junctions,
    their costs and no points); ``source_points`` the points the caller
    gave, as in ``navcore_distance_matrix``; ``limits`` float64, one or
    more cost limits (bands), strictly increasing, >= 0 (``inf`` allowed).
    A node is reached within a limit when its cost is ``<=`` the limit;
    a blocked node is never entered (a blocked source reaches nothing).
    Pieces: for every reached node, its edges toward walkable nodes at a
    finite cost (``start`` 0, ``reach`` the node's cost), plus any piece
    a point source lies on. Firstresult: the road plugin answers for
    sources given as points (phantom nodes on the roads) and, with a
    current road contraction hierarchy, for junctions; the csr plugin
    answers last for every graph with one bounded multi-source Dijkstra
    over its CSR view (on a navmesh the polygon graph's costs, between
    centroids; the navmesh plugin refuses a mesh with off-mesh links,
    which the polygon graph does not hold). With a current contraction hierarchy, a search that would
    settle more than a tenth of the nodes hands over to PHAST (an upward
    search, then one sweep down the ranks). Called once per
    ``World.isochrone`` call.
    """


@hookspec(firstresult=True)
def navcore_raycast(world: World, graph: NavGraph, start: Any, end: Any) -> RaycastHit | None:
    """Walk ``graph``'s walkable surface from ``start`` straight toward
    ``end`` (points as the caller gave them, unchecked) and return a
    ``navcore.RaycastHit``, or ``None`` to pass.

    As ``dtNavMeshQuery::raycast``: the ray moves from the node holding
    the start only into a neighbour across the side it leaves by, so it
    never jumps between nodes that merely overlap (a level's floors); a
    side with no walkable neighbour is the wall it stops at. A start on
    no walkable node gives the ``invalid_start`` result; malformed points
    a ``NavError``. Firstresult: the navmesh plugin answers for navmeshes
    (2D and layered), the grid plugin for grids (cell by cell); other
    graphs pass, and ``World.raycast`` raises a ``QueryError`` naming the
    graph. Called once per ``World.raycast``.
    """


@hookspec(firstresult=True)
def navcore_random_point(world: World, graph: NavGraph,
                         rng: np.random.Generator) -> MeshPoint | None:
    """Return a ``navcore.MeshPoint``: a point drawn uniformly (by area)
    from ``graph``'s walkable surface with ``rng`` (a validated numpy
    ``Generator``) and the node holding it, ``MeshPoint(-1, None)`` when
    nothing is walkable; or ``None`` to pass. As
    ``dtNavMeshQuery::findRandomPoint``: a node chosen with probability
    proportional to its area, then a point uniform in it. Firstresult:
    the navmesh plugin answers for navmeshes, the grid plugin for grids.
    Called once per
    ``World.random_point``.
    """


@hookspec(firstresult=True)
def navcore_random_point_around(world: World, graph: NavGraph, point: Any, radius: float,
                                rng: np.random.Generator) -> MeshPoint | None:
    """Return a ``navcore.MeshPoint``: a point within ``radius`` (a finite
    float > 0, ground distance) of ``point`` (as the caller gave it,
    unchecked), drawn with ``rng`` uniformly over the walkable nodes
    connected to ``point``'s through nodes that each come within
    ``radius`` of it; ``MeshPoint(-1, None)`` when ``point`` is on no walkable
    node; or ``None`` to pass. Malformed points raise a ``NavError``.
    ``dtNavMeshQuery::findRandomPointAroundCircle``'s use, with the point
    kept inside the circle. Firstresult: the navmesh plugin answers for
    navmeshes (2D and layered), the grid plugin for grids. Called once
    per ``World.random_point(..., around=, radius=)``.
    """


@hookspec(firstresult=True)
def navcore_nearest_point(world: World, graph: NavGraph, point: Any) -> MeshPoint | None:
    """Return a ``navcore.MeshPoint``: the point of ``graph``'s walkable
    surface nearest ``point`` (as the caller gave it, unchecked) and its
    node; ``MeshPoint(-1, None)`` when none is within the graph's reach
    (a level's ``extents``); or ``None`` to pass. Malformed points raise a
    ``NavError``. Firstresult: the navmesh plugin answers for navmeshes (a
    level as Detour's ``findNearestPoly``), the grid plugin for grids (the
    nearest walkable cell). Called once per
    ``World.nearest_point``.
    """

@hookspec(firstresult=True)
def navcore_walls(world: World, graph: NavGraph) -> tuple | None:
    """Return ``graph``'s walls for local avoidance as ``(vertices,
    ring_start)`` or ``(vertices, ring_start, owner)``, or ``None`` to
    pass: float64 ``(k, 2)`` vertices (ground coordinates) and int64
    ``ring_start`` (``r + 1`` entries, ``ring_start[-1] == k``), ring
    ``i`` being ``vertices[ring_start[i]:ring_start[i + 1]]``, closed (its
    last vertex joins its first). Each ring runs with walkable space on
    the right of every edge and solid on the left, as RVO2 takes
    obstacles (counter-clockwise around what is solid; the outer border
    of a map runs clockwise around the walkable space); consecutive
    edges along one straight wall may be merged. A ring of two vertices
    is a wall walkable on both sides. Every edge lies between walkable
    and not walkable space and all of that boundary is covered: the
    walls of ``graph.version`` (blocked nodes are solid; a closed edge
    between two walkable nodes is no wall).

    ``owner`` (int32 ``(k,)``), given, is the walkable node whose side
    the edge from vertex ``j`` to the next is: a graph whose walkable
    surface overlaps itself in the ground plane (a layered mesh's
    storeys, bridges) gives it, its rings then crossing one another, and
    a crowd takes an agent's walls only from the nodes of its
    neighbourhood (``navcore_local_neighbourhood``), never from the floor
    above or below it; such a graph merges no edges (each is one node's
    side). Without ``owner`` every wall counts for every agent near it.

    Firstresult: the grid plugin answers for grids (cell sides between
    walkable and blocked cells and the map's border), the navmesh plugin
    for navmeshes (polygon sides with no walkable neighbour; with
    ``owner`` on layered meshes). Called by crowds when a graph is added
    to one and after each batch of updates to it.

    A graph that was built for agents of a size (a navmesh's or a 3D
    level's ``agent_radius``: its polygons already keep that far from the
    solid) has its walls where agents' centres stop: a crowd keeps its
    agents only the rest of their radius (``radius - graph.agent_radius``,
    at least a hundredth of it) from them.
    """


@hookspec(firstresult=True)
def navcore_move_along_surface(world: World, graph: NavGraph, start: np.ndarray,
                               nodes: np.ndarray,
                               end: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Move points over the walkable surface: return ``(points, nodes)``,
    float64 ``(n, 2)`` and int32 ``(n,)``, or ``None`` to pass. ``start``
    and ``end`` are float64 ``(n, 2)`` ground points (finite, validated),
    ``nodes`` the int32 node holding each start (``-1``: not known,
    located here).

    What ``dtNavMeshQuery::moveAlongSurface`` is for: point ``i`` walks
    from ``start[i]`` toward ``end[i]`` over walkable nodes only and
    stops at ``end[i]`` when the straight move stays walkable; where it
    meets a wall it slides along it (the rest of the move projected onto
    the wall, a bounded number of times; Detour instead takes the nearest
    point within a circle, which may round a corner in one step), ending
    at the point nearest ``end[i]`` it reached that way, never farther
    from ``end[i]`` than the start, never through a wall, never across a
    corner two blocked nodes meet at. The answer's ``nodes[i]`` holds
    ``points[i]``. A start on no walkable node is first moved to the
    nearest walkable point (``navcore_nearest_point``); with none, the
    point stays and its node is ``-1``.

    On a graph whose surface overlaps itself in the ground plane (a
    layered mesh) a ground point does not say which storey it is on: the
    move starts on ``nodes[i]`` (a start a hair off it, rounded, at its
    nearest point) and goes from node to node across their shared sides
    only, so it stays on its storey or follows a ramp or stairs to
    another; a start given ``-1`` or a blocked node stays, node ``-1``
    (the caller places it again from its 3D point).

    Firstresult: the grid plugin answers for grids, the navmesh plugin
    for navmeshes (2D and layered), each in one kernel call for all
    points. Called by crowds once per step for all their agents on
    ``graph``.
    """


@hookspec(firstresult=True)
def navcore_local_neighbourhood(world: World, graph: NavGraph, points: np.ndarray,
                                nodes: np.ndarray,
                                radius: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Return each point's neighbourhood as ``(start, local)``, int64
    ``(n + 1,)`` and int32 node ids, point ``i``'s being
    ``local[start[i]:start[i + 1]]``; or ``None`` to pass. ``points`` are
    float64 ``(n, 2)`` ground points, ``nodes`` the int32 node each
    stands on (``-1``: none, and it has an empty neighbourhood),
    ``radius`` one finite number >= 0 or one per point.

    Detour's ``findLocalNeighbourhood``: ``nodes[i]`` (when walkable)
    first, then, breadth first, the walkable nodes across its sides that
    come within ``radius[i]`` of the point in the ground plane, leaving
    out one that overlaps a node already taken there (a storey above or
    below, reached round a spiral); an implementation may bound how many
    a point gets (the navmesh plugin: 32). Malformed arguments raise a
    ``QueryError``. Firstresult: the navmesh plugin answers for navmeshes
    (2D and layered). Called by crowds once per step on graphs whose
    walls have owners (``navcore_walls``): an agent avoids only the walls
    of its neighbourhood's nodes.
    """


@hookspec(firstresult=True)
def navcore_flow_field(world: World, graph: NavGraph, goal_node: int,
                       goal_point: np.ndarray) -> Any:
    """Return a flow field toward walkable node ``goal_node`` of ``graph``
    as it is now, or ``None`` to pass (a crowd's agents then plan a path
    each). ``goal_point`` (float64 ``(2,)``, finite, in ``goal_node``) is
    where the field's ways end when it measures to a point rather than to
    the node.

    A field serves every agent heading for ``goal_node`` at once (an RTS
    order: one search, not one per unit). It is an object with:

    * ``version``: the ``graph.version`` it answers for (a crowd asks for
      it again after a batch of updates);
    * ``steer(points, nodes, goals, radii) -> (cost, ahead, count)``: for
      ``k`` agents at ``points`` (float64 ``(k, 2)``) standing in
      ``nodes`` (int32 ``(k,)``, as ``navcore_move_along_surface``
      answered before the graph's last update: a field whose node ids an
      update may change locates such points again), heading for ``goals``
      (float64 ``(k, 2)``, each in ``goal_node``), discs of ``radii``
      (float64 ``(k,)``: a way that turns at a wall's corner is offered
      that far off it, where the disc can round it): float64 ``cost``
      ``(k,)``, the length of each one's way to the goal by the field
      (``inf``: no way from there); float64 ``ahead`` ``(k, m, 2)`` (``m
      >= 1``, the field's choice) and int32 ``count`` ``(k,)``: the next
      ``count[i]`` points of agent ``i``'s way, the first one it can walk
      to in a straight line, after which it goes straight to
      ``goals[i]``. One call for all points, no Python per agent.

    Firstresult: the navmesh plugin answers for 2D navmeshes (exact
    any-angle lengths to ``goal_point``: Polyanya run once from it to
    every polygon, ``navcore_navmesh.MeshFlowField``), the crowd plugin
    for grids (``trylast``: one Dijkstra from ``goal_node`` over the
    grid's moves, ``navcore_crowd.FlowField``, steered by looking ahead
    along it). Called by crowds when at least ``FLOW_MIN_AGENTS`` of their
    agents share a goal node, and again after each batch of updates to
    ``graph`` while they walk it (as scheduler jobs, one per goal, on the
    world's workers); the field must not change after it is returned,
    since jobs on several threads may read it.
    """

# -- updates -----------------------------------------------------------------
# ``World.update`` validates at once (``navcore_make_update``); ``World.tick``
# applies each graph's batch (``navcore_apply_updates``) and tells the
# observers (``navcore_graph_updated``).

@hookspec(firstresult=True)
def navcore_make_update(world: World, graph: NavGraph, params: dict) -> Update | None:
    """Validate ``World.update(graph_id, **params)`` and normalise it.

    Return a ``navcore.Update`` (kind and normalised parameters), or
    ``None`` when this plugin does not handle ``graph``. Raise
    ``UpdateError`` naming the offending parameter when ``params`` is
    malformed, so the caller hears about it at once and nothing is queued.
    Called once per ``World.update`` call, on the caller's thread.

    The shared vocabulary, which every backend honours for its graphs (the
    conformance kit checks it) beside its own:

    * ``nodes=[ids], walkable=bool``: those nodes become walls or floor
      (grids, navmeshes, roads and the csr type alike; ``edges=`` with
      ``cost=`` is the csr plugin's generic edge update);
    * ``rect=(x, y, w, h)`` on planar graphs (grids: whole cells; navmeshes
      and csr graphs with positions: world units), with ``walkable=``:
      corner ``(x, y)``, ``w`` wide and ``h`` high, never two corners. A
      box that does not fit the graph is an ``UpdateError``, not clipped;
    * road networks (lon, lat) take ``bbox=(west, south, east, north)``
      in degrees instead, and refuse ``rect=`` with an ``UpdateError``
      that names ``bbox=``.
    """


@hookspec(firstresult=True)
def navcore_apply_updates(world: World, graph: NavGraph, batch: list[Update]) -> np.ndarray | None:
    """Apply a batch of queued updates to ``graph``; return the dirty nodes.

    ``batch`` is a list of ``navcore.Update`` in the order they were queued
    (later writes win where they overlap). The backend that owns ``graph``
    applies them as vectorised array work, keeps its CSR view consistent,
    bumps ``graph.version`` exactly once (derived views follow the graph
    batch by batch by it) and returns a sorted int32 array of the node ids
    whose walkability or incident edges changed. ``graph.num_nodes`` may
    grow (never shrink) in a batch; the new ids are all in the array.
    Either the whole batch is applied or, on error, nothing is. Firstresult. Called by ``World.tick``
    once per graph that has queued updates, before any query of that frame.
    """


@hookspec
def navcore_graph_updated(world: World, graph_id: Hashable, graph: NavGraph,
                          dirty: np.ndarray) -> None:
    """React to an applied batch: ``dirty`` is the int32 array of changed
    nodes returned by ``navcore_apply_updates``.

    The areas plugin rebuilds the hierarchical nodes that contain dirty
    nodes, caches are invalidated, the scheduler marks paths through dirty
    nodes stale. Called once per updated graph per tick. No return value.
    """


@hookspec
def navcore_components_changed(world: World, graph_id: Hashable, changed_areas: np.ndarray) -> None:
    """Connectivity of ``graph_id`` changed: ``changed_areas`` is a sorted
    int32 array of the area ids that split, merged, appeared or vanished.

    Fired by the component tracker (the areas plugin) from its
    ``navcore_graph_updated`` implementation, after an update that changed
    the partition into areas; not fired when every area kept its id and
    only gained or lost nodes at its edge. No return value.
    """


# -- frame -------------------------------------------------------------------
# What ``World.tick`` calls, in this order: ``frame_start``, the updates
# above, ``frame_work``, ``frame_end``.

@hookspec
def navcore_world_created(world: World) -> None:
    """Attach per-world services: the scheduler plugin sets
    ``world.scheduler`` here.

    Called once at the end of ``World.__init__``, after the plugins given to
    the constructor and the entry points are registered. No return value.
    """


@hookspec
def navcore_world_closed(world: World) -> None:
    """Release what this plugin holds for ``world``: stop its threads and
    pools, and finish every handle it still owes an answer (a path
    request's handle finishes ``cancelled``, so nobody waits forever).

    Called once, by the first ``World.close()`` (or the end of a ``with
    World() as world:`` block), after background warm-ups have finished.
    Afterwards the world answers queries on the calling thread but
    refuses ``add_graph``, ``update``, ``request_path`` and ``tick``. No
    return value.
    """


@hookspec
def navcore_warm_up(world: World, graph: NavGraph) -> None:
    """Load the kernels this plugin will run on ``graph`` now.

    A numba kernel's first call in a process loads it from the cache (a
    few milliseconds; a compile without the cache), and a game would feel
    that as a hitch in whichever frame first needs the kernel. Run each
    kernel once on tiny or empty input, or as an operation that changes
    nothing (re-grouping one node, an empty refresh). Must not change any
    answer a query would give. Called once per graph by ``add_graph``
    (after ``navcore_graph_built``; on a background thread with
    ``World(warm_up="background")``, where nothing else touches the graph
    through the world until it returns) and by ``World.warm_up()``. A
    test in ``tests/kernel/test_warm_up.py`` shows how to check in a fresh
    process that no tick loads a kernel afterwards. Not firstresult; no
    return value.
    """


@hookspec(firstresult=True)
def navcore_sample_graph(world: World, graph_type: str, graph_id: Hashable) -> NavGraph | None:
    """Add a small graph of ``graph_type`` to ``world`` as ``graph_id``,
    with the views a game may build on one later (``contract``,
    ``simplify``, ...), for ``navcore.warm_up``, which then warms it up
    (``navcore_warm_up``): a game or an installer runs that once to fill
    numba's cache with every kernel of the type. Called once per graph
    type by ``navcore.warm_up`` (and ``navcore warm-up``), on a world made
    with ``warm_up=False``. Return the graph; None when ``graph_type`` is
    not one of this plugin's. firstresult.
    """


@hookspec(firstresult=True)
def navcore_run_frame(world: World, frame: int, stats: FrameStats, deadline: float,
                      budget_nodes: int | None,
                      take_updates: Callable[[], list]) -> FrameStats | None:
    """Run frame number ``frame`` of ``World.tick`` and return ``stats``
    filled in. ``World.tick`` checks its arguments, waits for background
    warm-ups, counts the frame and leaves the rest to this hook; the
    scheduler plugin implements it, and without an implementation ``tick``
    is a ``FrameError``. Firstresult; called on the thread that calls
    ``tick``. In this order:

    1. ``navcore_frame_start``;
    2. ``take_updates()``: ``[(graph_id, graph, [Update])]``, the batches
       queued since the last frame (taken out of the queue; called once);
       each graph's batch applied through ``navcore_apply_updates``
       between ``graph.begin_write()`` and ``graph.end_write(dirty)``
       (``dirty``: what the hook returned, kept in the graph's log for
       ``World.is_current``; ``end_write()`` after a failed batch), graphs
       in any order or at once (the scheduler runs them on its workers);
    3. ``navcore_graph_updated`` per applied batch, in queue order, on
       this thread; then a failed batch is raised as a ``NavError`` saying
       its updates were dropped;
    4. ``navcore_frame_work(world, deadline, stats, budget_nodes)``;
       ``deadline`` is ``inf`` in a deterministic world;
    5. ``navcore_frame_move(world, stats)``: crowds move by ``stats.dt``;
    6. ``world.last_stats = stats`` with the phases' times, then
       ``navcore_frame_end``.
    """


@hookspec
def navcore_frame_start(world: World, frame: int) -> None:
    """``World.tick`` begins frame number ``frame`` (counting from 1).

    Called before queued updates are applied. No return value.
    """


@hookspec
def navcore_frame_work(world: World, deadline: float, stats: FrameStats,
                       budget_nodes: int | None) -> None:
    """Do the frame's budgeted work: serve queued path requests until
    ``time.perf_counter()`` reaches ``deadline`` and, when ``budget_nodes``
    is not ``None``, until the served searches expanded that many nodes
    (``PathResult.expanded`` summed), adding to ``stats``
    (``requests_served``, ``requests_waiting``, ``nodes_expanded``).

    In a deterministic world (``World(deterministic=True)``) ``deadline``
    is ``inf`` and only the node budget counts: what a frame serves must
    then depend on the queue and the searches alone, never on the clock
    or the number of worker threads. Called once per ``World.tick``, after
    the updates were applied and ``navcore_graph_updated`` ran, before
    ``navcore_frame_end``. The scheduler plugin serves path requests here,
    oldest first. No return value.
    """


@hookspec
def navcore_frame_move(world: World, stats: FrameStats) -> None:
    """Move what walks the graphs by the frame's ``stats.dt`` seconds:
    the crowd plugin steps every crowd of ``world.crowds`` (paths served
    this frame are already in their corridors), adding to
    ``stats.agents_moved``. Called once per ``World.tick``, after
    ``navcore_frame_work`` and before ``navcore_frame_end``, on the thread
    that calls ``tick`` (a crowd may split its agents over the world's
    worker threads). No return value.
    """


@hookspec(firstresult=True)
def navcore_make_crowd(world: World, crowd_id: Hashable, graph_id: Hashable,
                       graph: NavGraph, params: dict) -> Any:
    """Return a new crowd for ``World.add_crowd(crowd_id, graph=graph_id,
    **params)`` on ``graph``, or ``None`` to pass: an object with
    ``step(dt)`` (what ``navcore_frame_move`` calls) and ``close()``
    (the crowd is removed: cancel its requests). Raise ``CrowdError``
    for parameters it cannot use; ``World`` checks that ``crowd_id`` is
    new and ``graph_id`` known, and adds the crowd to ``world.crowds``.
    Firstresult: the crowd plugin answers for graphs that answer
    ``navcore_walls`` and ``navcore_move_along_surface`` (and, on a graph
    whose walls have owners, ``navcore_local_neighbourhood``): grids, 2D
    navmeshes and layered meshes (levels, whose agents stand at 3D
    points). Called once per ``World.add_crowd``.
    """


@hookspec
def navcore_frame_end(world: World, frame: int, stats: FrameStats) -> None:
    """``World.tick`` finished frame ``frame``; ``stats`` is the
    ``navcore.FrameStats`` of the frame (updates applied, dirty nodes,
    requests served, time per phase). Called once per tick, after every
    other hook of the frame (``world.last_stats`` is already this frame's),
    on the thread that called ``tick``. No return value. An implementation
    may raise to end ``tick`` with an error once the frame's work is done:
    the scheduler raises a path callback's error here (``trylast``).
    """


# -- command line and scenes -------------------------------------------------

@hookspec
def navcore_add_commands(subparsers: Any) -> None:
    """Add subcommands to the ``navcore`` command line.

    ``subparsers`` is the ``argparse`` subparsers object of the ``navcore``
    parser: call ``subparsers.add_parser(name, help=...)``, add arguments,
    and ``set_defaults(func=handler)`` where ``handler(args) -> int`` is the
    exit status. Called once when the command line is built (the grid plugin
    adds ``navcore scen`` this way, the scenes plugin ``run``, ``validate``
    and ``render``). No return value.
    """


@hookspec
def navcore_scene_event_kinds() -> dict[str, Any] | None:
    """Announce event kinds that scene files may schedule by name, as
    ``{at: N, <name>: value}`` in their ``events``.

    Return a dict mapping a name to an event kind: an object with
    ``validate(value, graph, sim) -> payload``, which checks the YAML value
    before the scene runs and raises a ``NavError`` (reported at the
    value's file, line and column), and ``apply(sim, graph_id, payload)``,
    which carries it out at frame N through the ``navcore.Simulation`` API.
    ``navcore_scenes.events`` (plugins/navcore_scenes/events.py) documents
    the contract; the scenes plugin offers the built-in kinds (block,
    unblock, open, close, cost, goal) through this hook, the other plugins'
    kinds come next to them. Called once each time a
    ``navcore.Simulation`` is built from a scene (``navcore run``,
    ``validate``, ``render``). Not firstresult: every plugin's dict is
    collected; a name claimed twice is a ``PluginError``.
    """


@hookspec(firstresult=True)
def navcore_scene_layer(world: World, graph_id: Hashable, graph: NavGraph) -> Any:
    """Lend a scene your graph's geometry: return a ``navcore.SceneLayer``
    for ``graph``, or ``None`` to pass.

    The layer parses the regions a scene file writes (doors, ``block``,
    ``unblock`` and ``cost`` events, a crowd's ``from`` and ``to``, an
    obstacle's ``rect``), lists their nodes, moves obstacles inside its
    ``bounds`` and queues the scene's changes with the backend's own
    ``World.update`` parameters (see ``navcore/scene_layer.py``; the grid
    plugin's is ``navcore_grid.scene_layer.GridSceneLayer``). When no plugin
    answers, the graph takes agents between points or node ids only, and
    a scene that gives it regions is a ``SceneError`` at the offending
    value. Firstresult. Called by the scenes plugin once per graph of a
    scene when a ``navcore.Simulation`` is built, after the graph was added
    to ``world`` (``navcore run``, ``validate``, ``render``), and by the
    draw plugin (``navcore.draw`` / ``navcore.plot``) once per picture,
    whose frame is
    the layer's ``bounds``, ``unit``, ``y_up`` and ``aspect`` (a layer
    that raises a ``NavError`` there is passed over: the picture is then
    framed by the node positions, or refused). Building a layer must
    change nothing in the graph or the world.
    """


@hookspec(firstresult=True)
def navcore_view(world: World, graph_id: Hashable, port: Any, open_browser: bool) -> Any:
    """Show ``world`` live in a browser: start a local web server for
    ``navcore.view`` and return its handle (``url``, ``close()``,
    ``wait()``), or ``None`` to pass.

    ``graph_id`` names the graph shown first (``None``: the first one that
    can be drawn); ``port`` a TCP port on 127.0.0.1 (``None``: any free
    one); ``open_browser`` whether to open the address in the user's
    browser. The arguments are the caller's, unchecked: a mistake is a
    ``QueryError`` (``UnknownGraphError`` for an unknown graph), raised
    before anything listens. The server runs on its own thread; the world
    is read and queried only on the thread that ticks it, at the end of
    its frames (``navcore_frame_end``). Firstresult: the view plugin
    (``navcore_view``) answers; when no plugin does, ``navcore.view``
    raises a ``QueryError`` saying so. Called once per ``navcore.view``
    call, on the caller's thread. An implementation imports its web
    server library in the call, never when it is loaded.
    """


# -- pictures ----------------------------------------------------------------
# ``navcore.draw`` and ``navcore.plot`` ask ``navcore_picture`` (the draw
# plugin answers); backends paint the map into its canvas
# (``navcore_draw_graph``) and other plugins add extras
# (``navcore_draw_overlay``), for those and for a scene's pictures alike.

@hookspec(firstresult=True)
def navcore_picture(world: World, graph_id: Hashable, call: str, ax: Any, paths: Any,
                    agents: Any, areas: Any, scale: Any, out: Any) -> Any:
    """Make the picture ``navcore.draw`` or ``navcore.plot`` asks for, or
    return ``None`` to pass.

    ``call`` is ``"draw"`` or ``"plot"``: the public function asking.
    ``world`` is a ``navcore.World`` (the kernel checked that); the other
    arguments are the caller's, unchecked: ``graph_id`` names the graph
    (an unknown one is ``UnknownGraphError``); ``ax`` the matplotlib axes
    ``plot`` was given (``None`` for ``draw``); ``paths`` found
    ``PathResult``s or ``(k, 2)`` world points, drawn as lines; ``agents``
    ``(k, 2)`` world points, drawn as discs; ``areas`` whether each
    connected area gets its own colour; ``scale`` whole pixels per map
    unit, or ``None`` for about 1024 pixels on the long side; ``out`` a
    ``.png`` path to write the picture to, or ``None`` (always ``None``
    for ``plot``). Return, for ``"draw"``, the ``(H, W, 3)`` uint8 RGB
    array (row 0 at the top); for ``"plot"``, the ``AxesImage`` shown on
    ``ax`` in world coordinates. A mistake is a ``QueryError`` (as
    ``navcore.draw`` documents), raised before ``out`` is written.

    Firstresult: the draw plugin (``navcore_draw``) answers; when no
    plugin does, ``navcore.draw`` and ``navcore.plot`` raise a
    ``QueryError`` saying the draw plugin is missing. Called once per
    ``navcore.draw`` or ``navcore.plot`` call, on the caller's thread. An
    implementation imports Pillow (and matplotlib) in the call, never when
    it is loaded: ``World()`` loads no Pillow.
    """


@hookspec(firstresult=True)
def navcore_draw_graph(graph: NavGraph, canvas: Any) -> bool | None:
    """Draw ``graph``'s map into ``canvas``: every node in its colour (its
    area's; dark for walls), or return ``None`` to pass.

    ``canvas`` (the draw plugin's ``navcore_draw.canvas.Canvas``) holds
    ``rgb``, an ``(H, W, 3)`` uint8 array to paint, and ``node_at``, an
    ``(H, W)`` int32 array to fill with the node each pixel shows (``-1``:
    none), which overlays use; ``colours``, the ``(num_nodes, 3)`` uint8
    colour of each node; the world-to-pixel transform (``origin``, ``scale`` pixels
    per unit, ``to_pixels(points)``, ``pixel_centres()``), ``paint(node_at)``
    (fill both arrays at once), ``area_colours(area_ids)``, and ``wall``
    and ``covered`` (the colours of walls and of floor under a moving
    obstacle, for backends that draw those as shapes). Draw with
    numpy only. Return ``True`` when drawn. Firstresult: the grid plugin
    draws its cells; the csr plugin draws, last, any graph with node
    positions as nodes and edges. Called once per picture by the draw
    plugin (``navcore.draw`` / ``navcore.plot``) and by the scenes plugin
    (each frame of an animation); the canvas covers the bounds of the graph's
    scene layer, or of its node positions when it has no layer (csr).
    """


@hookspec
def navcore_draw_overlay(graph: NavGraph, canvas: Any) -> None:
    """Draw extras over the map ``navcore_draw_graph`` drew into
    ``canvas``: the areas plugin outlines its nodes when
    ``canvas.borders`` is set (``--borders``), with
    ``canvas.outline(labels)``, which darkens the pixels where a per-node
    label changes (it reads ``canvas.node_at``, so it needs no geometry).
    Not firstresult: every plugin draws (pluggy's order: the last
    registered first). Called once per picture (by the draw plugin for
    ``navcore.draw`` and by the scenes plugin), after ``navcore_draw_graph`` and before agents and
    paths are drawn. No return value.
    """
