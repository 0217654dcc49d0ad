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
* An implementation that rejects its input raises a ``navcore.NavError``
  subclass and leaves the graph unchanged.

Graph ids are whatever hashable the user chose (usually a string); a
``graph`` argument is the ``navcore.NavGraph`` that id names.
"""
from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("navcore")


# -- graph -----------------------------------------------------------------

@hookspec
def navcore_graph_types():
    """Announce the graph ``type:`` names this plugin can build.

    Return a dict mapping a type name to a builder
    ``build(world, graph_id, **params) -> NavGraph``. The builder validates
    its parameters and raises ``GraphError`` (or ``MapFormatError`` for
    files) on bad input. Called when a plugin is registered (to detect two
    plugins claiming one name, which is a ``PluginError`` naming both) and
    when ``World.add_graph`` resolves a type. Not firstresult: every
    plugin's dict is collected.
    """


@hookspec(firstresult=True)
def navcore_storage_build(src, dst, data, num_nodes, options):
    """Build the adjacency storage for an edge list.

    ``src`` and ``dst`` are int arrays of equal length (already validated:
    ids in ``0..num_nodes-1``); ``data`` is a dict of per-edge arrays of the
    same length (``"cost"`` among them, float64); ``options`` is a dict with
    ``sort`` (sort each node's neighbours by id), ``dedup`` (drop repeated
    ``(src, dst)`` pairs, the first edge wins). Return an object with the
    CSR interface of ``navcore_csr.CSR`` (``offsets``, ``targets``,
    ``data``, ``cost``, ``num_nodes``, ``num_edges``, ``neighbors(u)``,
    ``reverse()``). Firstresult: the csr plugin answers unless another
    storage plugin answers first. Called once per graph build.
    """


@hookspec
def navcore_graph_built(world, graph_id, graph):
    """A graph was built and added to ``world`` under ``graph_id``.

    Observers attach per-graph state here (the hierarchy plugin builds its
    components, the csr plugin prepares heuristic scales) in
    ``graph.extensions[plugin_name]``. Called once per ``add_graph``, after
    the builder returned and before ``add_graph`` returns. No return value.
    """


@hookspec
def navcore_graph_removed(world, graph_id, graph):
    """``graph_id`` was removed from ``world``; drop per-graph state.

    Called once per ``World.remove_graph``. No return value.
    """


# -- query -----------------------------------------------------------------

@hookspec
def navcore_algorithms(world, graph):
    """List the ``algorithm=`` names this plugin can answer for ``graph``.

    Return a list of strings (empty or ``None`` when the plugin does not
    handle this graph). Used to validate ``find_path(..., algorithm=...)``
    and to name the choices in the error. Not firstresult: names from all
    plugins are merged. Called per query only when the algorithm is not
    ``"auto"`` and is unknown to the cache, and by ``navcore plugins``.
    """


@hookspec(firstresult=True)
def navcore_find_path(world, graph, request):
    """Answer a single path query, or return ``None`` to pass it on.

    ``request`` is a ``navcore.PathRequest`` whose ``start_node`` and
    ``goal_node`` are already resolved, in range and walkable.
    Return a ``navcore.PathResult``. Specialised planners (grid JPS, road
    contraction hierarchies, the hierarchy plugin's O(1) unreachable check)
    are ``tryfirst`` or default; the csr plugin's generic A*/Dijkstra is
    ``trylast`` and answers for every graph. Called once per query, on the
    thread that runs the query; implementations must use per-thread scratch
    (``graph.scratch``) and must not mutate the graph.
    """


@hookspec(firstresult=True)
def navcore_postprocess_path(world, graph, request, result):
    """Improve a found path (string pulling, smoothing), or return ``None``.

    Called once per query whose ``result`` is ``found``, after
    ``navcore_find_path``. Return a new ``PathResult`` to replace it.
    Firstresult: the first plugin that returns a result wins.
    """


@hookspec(firstresult=True)
def navcore_path_costs(world, graph, nodes, starts):
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
def navcore_reachable(world, graph, a, b):
    """Return whether node ``b`` can be reached from node ``a``, or ``None``.

    ``a`` and ``b`` are resolved node ids in range. The hierarchy plugin
    answers in O(1) from its area ids; the csr plugin answers last with a
    search. Firstresult. Called once per ``World.reachable`` call.
    """


@hookspec(firstresult=True)
def navcore_reachable_many(world, graph, a, b):
    """Return a bool array: ``out[i]`` is whether ``b[i]`` can be reached
    from ``a[i]``, or ``None`` to pass the call on.

    ``a`` and ``b`` are int32 arrays of equal length, ids in range (``-1``
    stands for a point outside the graph and is never reachable).
    The hierarchy plugin answers with one vectorised area comparison; when
    no plugin answers, ``World.reachable_many`` asks ``navcore_reachable``
    pair by pair. Firstresult. Called once per ``World.reachable_many``.
    """


@hookspec(firstresult=True)
def navcore_areas(world, graph, nodes):
    """Return the int32 area (connected component) id of each node in the
    int32 array ``nodes``, or of every node when ``nodes`` is ``None``;
    ``-1`` for blocked nodes. Or ``None`` to pass the call on.

    Nodes share an id exactly when they are connected (for directed
    graphs: weakly connected). Firstresult; the hierarchy plugin answers.
    Called once per ``World.area`` / ``World.areas`` call.
    """


@hookspec(firstresult=True)
def navcore_nearest_reachable(world, graph, point, start):
    """Return the id of the walkable node closest to ``point`` that node
    ``start`` can reach (``-1`` when there is none), or ``None``.

    This is how an agent picks its end node when the clicked point lies
    in a wall or on an island. ``start`` is a resolved, in-range node id.
    Firstresult; the hierarchy plugin answers. Called once per
    ``World.nearest_reachable`` call.
    """


@hookspec(firstresult=True)
def navcore_distance_matrix(world, graph, sources, targets):
    """Return the ``(len(sources), len(targets))`` float64 matrix of
    shortest path costs (``inf`` where unreachable), or ``None``.

    ``sources`` and ``targets`` are validated int32 node id arrays.
    Firstresult: road graphs answer with contraction-hierarchy buckets, the
    csr plugin answers last with one Dijkstra per source (or per target on
    the reversed graph when targets are fewer). Called once per
    ``World.distance_matrix`` call.
    """


# -- update ----------------------------------------------------------------

@hookspec(firstresult=True)
def navcore_make_update(world, graph, params):
    """Validate ``World.update(graph_id, **params)`` and normalise it.

    Return a ``navcore.Update`` (kind and normalised parameters), or
    ``None`` when this plugin does not handle ``graph``. Raise
    ``UpdateError`` naming the offending parameter when ``params`` is
    malformed, so the caller hears about it at once and nothing is queued.
    Called once per ``World.update`` call, on the caller's thread.
    """


@hookspec(firstresult=True)
def navcore_apply_updates(world, graph, batch):
    """Apply a batch of queued updates to ``graph``; return the dirty nodes.

    ``batch`` is a list of ``navcore.Update`` in the order they were queued
    (later writes win where they overlap). The backend that owns ``graph``
    applies them as vectorised array work, keeps its CSR view consistent,
    bumps ``graph.version`` and returns a sorted int32 array of the node ids
    whose walkability or incident edges changed. Either the whole batch is
    applied or, on error, nothing is. Firstresult. Called by ``World.tick``
    once per graph that has queued updates, before any query of that frame.
    """


@hookspec
def navcore_graph_updated(world, graph_id, graph, dirty):
    """React to an applied batch: ``dirty`` is the int32 array of changed
    nodes returned by ``navcore_apply_updates``.

    The hierarchy plugin rebuilds the hierarchical nodes that contain dirty
    nodes, caches are invalidated, the scheduler marks paths through dirty
    nodes stale. Called once per updated graph per tick. No return value.
    """


@hookspec
def navcore_components_changed(world, graph_id, changed_areas):
    """Connectivity of ``graph_id`` changed: ``changed_areas`` is a sorted
    int32 array of the area ids that split, merged, appeared or vanished.

    Fired by the component tracker (the hierarchy plugin) from its
    ``navcore_graph_updated`` implementation, after an update that changed
    the partition into areas; not fired when every area kept its id and
    only gained or lost nodes at its edge. No return value.
    """


@hookspec
def navcore_frame_work(world, deadline, stats):
    """Do the frame's budgeted work: serve queued path requests until
    ``time.perf_counter()`` reaches ``deadline``, adding to ``stats``
    (``requests_served``, ``requests_waiting``).

    Called once per ``World.tick``, after the updates were applied and
    ``navcore_graph_updated`` ran, before ``navcore_frame_end``. The
    scheduler plugin serves path requests here, oldest first. No return
    value.
    """


@hookspec
def navcore_world_created(world):
    """Attach per-world services: the scheduler plugin sets
    ``world.scheduler`` here.

    Called once at the end of ``World.__init__``, after the plugins given to
    the constructor and the entry points are registered. No return value.
    """


# -- command line ----------------------------------------------------------

@hookspec
def navcore_add_commands(subparsers):
    """Add subcommands to the ``navcore`` command line.

    ``subparsers`` is the ``argparse`` subparsers object of the ``navcore``
    parser: call ``subparsers.add_parser(name, help=...)``, add arguments,
    and ``set_defaults(func=handler)`` where ``handler(args) -> int`` is the
    exit status. Called once when the command line is built (the grid plugin
    adds ``navcore scen`` this way, the scenes plugin ``run``, ``validate``
    and ``render``). No return value.
    """


@hookspec
def navcore_warm_up(world, graph):
    """Load the kernels this plugin will run on ``graph`` now.

    A numba kernel's first call in a process loads it from the cache (a
    few milliseconds; a compile without the cache), and a game would feel
    that as a hitch in whichever frame first needs the kernel. Run each
    kernel once on tiny or empty input, or as an operation that changes
    nothing (re-grouping one node, an empty refresh). Must not change any
    answer a query would give. Called by ``World.warm_up()`` once per
    graph, which ``navcore.Simulation`` calls before its first frame. Not
    firstresult; no return value.
    """


# -- scenes ----------------------------------------------------------------

@hookspec
def navcore_scene_event_kinds():
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


# -- frame -----------------------------------------------------------------

@hookspec
def navcore_frame_start(world, frame):
    """``World.tick`` begins frame number ``frame`` (counting from 1).

    Called before queued updates are applied. No return value.
    """


@hookspec
def navcore_frame_end(world, frame, stats):
    """``World.tick`` finished frame ``frame``; ``stats`` is the
    ``navcore.FrameStats`` of the frame (updates applied, dirty nodes,
    requests served, time per phase). Called once per tick, after every
    other hook of the frame, on the thread that called ``tick``. No return
    value.
    """
