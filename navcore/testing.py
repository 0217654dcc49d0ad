"""The conformance kit: what every graph type must do, built-in or
third-party, checked through the public API only.

A plugin author says how to make small graphs of their type with a
:class:`GraphFactory` and runs the checks from their own tests. For a
hexagonal grid plugin (``examples/navcore_hexgrid``) the whole test file
reads::

    import navcore.testing
    import navcore_hexgrid


    class HexFactory(navcore.testing.GraphFactory):
        graph_type = "hexgrid"
        plugins = (navcore_hexgrid,)     # registered in every world the kit makes

        def build(self, world, graph_id, rng):
            w, h = (int(v) for v in rng.integers(4, 10, size=2))
            return world.add_graph(graph_id, type="hexgrid", width=w, height=h)

        def random_update(self, graph, rng):
            # the World.update parameters of one random change; here the
            # generic vocabulary of navcore_csr (nodes=/walkable=, edges=/cost=)
            nodes = rng.choice(graph.num_nodes, size=3, replace=False)
            return {"nodes": nodes.tolist(), "walkable": bool(rng.random() < 0.5)}

        def block_nodes(self, graph, nodes):
            return {"nodes": list(nodes), "walkable": False}


    @navcore.testing.parametrize([HexFactory()])
    def test_hexgrid_conforms(factory, check):
        check(factory)

``parametrize`` makes one test per factory and check, with ids such as
``hexgrid-paths_match_reference``. Without pytest,
``navcore.testing.check_graph_type(HexFactory())`` runs every check for
three seeds and raises one ``AssertionError`` that lists every failure.

The checks (``CHECKS``; each is ``check_xxx(factory, seed=0)`` and raises
``AssertionError`` saying what differed, for which graph and updates):

* ``paths_match_reference``: ``find_path`` for every algorithm the world
  lists agrees with a plain-Python Dijkstra on the graph's CSR view
  (status, cost to 1e-9, and ``nodes`` is a walk along finite edges over
  walkable nodes that costs what the result says), before and after random
  updates. ``auto``, ``dijkstra`` and ``astar`` must answer; another
  algorithm may decline a graph with ``QueryError`` (``jps`` on a weighted
  grid). Algorithms that answer from a derived view built on request
  (``VIEW_BUILDERS``: ``ch``, ``simplified``) are checked once more after
  the kit built the view, stale views are checked to decline or be right.
  Every result carries the graph's ``version`` (``graph.stamp()``), is
  ``World.is_current`` and is an object of its own (a backend returns a
  new ``PathResult`` per query: ``World`` writes the version on it).
* ``reachable_and_areas_match_labelling``: ``areas`` gives the same
  partition as a full labelling of the weakly connected components, and
  ``reachable`` / ``reachable_many`` agree with a breadth-first search,
  before and after random updates.
* ``dirty_covers_changes``: every node whose walkable flag changed, or
  which has an incident edge whose cost changed, is in the ``dirty``
  array that ``navcore_graph_updated`` receives; ``version`` moves on.
* ``scheduler_replans``: blocking a node in the middle of a path found by
  ``request_path(..., repath=True)`` makes the scheduler plan it again,
  and the new result is the reference answer on the changed graph; the
  old result is no longer ``World.is_current``, the new one is, and both
  carry the version of the graph they were planned on.
* ``bad_input_changes_nothing``: malformed node ids, points, algorithm
  names, update parameters and graph ids raise a ``NavError`` subclass
  and leave the graph (walkable mask, CSR arrays, ``version``) and every
  answer as they were.
* ``workers_agree``: one script of requests, updates and ticks gives
  identical results with ``World(workers=0)`` and ``World(workers=2)``
  (with every search on a worker thread: ``Scheduler.min_chunk_ms = 0``).
* ``options_are_read_or_refused``: ``find_path`` refuses, with a
  ``QueryError`` listing the graph's options, every keyword option no
  plugin declares for the graph (``heuristic=`` on a grid), and a value
  outside a declared option's allowed ones; each declared option is read
  by some algorithm of the graph (declared per graph type).
* ``update_vocabulary``: the shared updates of ``navcore_make_update``:
  ``nodes=`` with ``walkable=`` blocks and frees nodes; on a graph with
  positions ``rect=(x, y, w, h)`` blocks and frees the place under it, or
  a road network refuses it naming ``bbox=`` (not checked on a 3D level,
  whose places are 3D).
* ``points_locate_back``: a path's ``points`` are its nodes' points (or
  pass through them in order, for ``GraphFactory.drawn_points``), and
  a node's point (``graph.points_of``) locates back to that node, so
  points from a result can be passed to the next query.
* ``parameters_documented``: every keyword of the type's builder has a
  meaning in its docstring's ``Parameters:`` section (``navcore.builders``),
  so ``help(world.add_graph)`` and ``navcore types`` can tell users.

Geometric algorithms (``GraphFactory.geometric_algorithms``, a navmesh's
``funnel``) answer with a polyline, not a walk on the CSR view: for them
``paths_match_reference`` and ``scheduler_replans`` check the status
against the reference, that ``nodes`` is a walk along finite edges, that
``cost`` is the polyline's length and that its ends locate to the start
and goal nodes (:func:`check_geometric`); ``points_locate_back`` checks
the ends instead of one point per node.

On a graph of a 3D level (``LayeredMeshGraph``: it has ``to_ground`` and
``points_on``) query points are ``(x, y, z)``: a geometric path's length
is measured on the ground plane (``to_ground``, what its ``cost`` is),
its ends and the nodes' points (``points_of`` lifted with ``points_on``)
are located with their height, so on their own floor.

A graph with off-mesh links (``paths_follow_edges`` False and ``links``
with ``start``, ``end``, ``bidirectional`` and ``cost`` per link, as a
level built with ``links=``; put their ends on the surface) has paths
that are no single walk: the references add each link as a jump from the
node under its start (``graph.locate``) to the node under its end (and
back when bidirectional), so statuses and ``reachable`` count links
(``areas`` still count walkable geometry only). A path is checked by
what it says it takes (``PathResult.links``): each jump leaves from the
point at the link's index, on the node under that link's start (its end,
taken back), and lands on the node under its other end; ``nodes`` is
walks along finite edges joined by those jumps; ``cost`` is the
polyline's length without the jumps plus the links' costs. The cheapest
path costs no more than going to a link, taking it and going on (each
way ``find_path``'s own answer): ``paths_match_reference`` checks those
inequalities for ``auto``, which catches a search that misses a cheaper
route through a link.

The kit assumes no plugin post-processes paths (string pulling would
replace nodes by points that are not joined by edges). Worlds are made by
``factory.make_world`` (by default with the built-in plugins and
``factory.plugins``, third-party entry points not loaded), so a test sees
exactly the plugins it names.
"""
from __future__ import annotations

import abc
import functools
import heapq
import importlib
import math
from collections import deque
from typing import NamedTuple

import numpy as np

from . import builders, validate
from .errors import NavError, QueryError, UpdateError
from .graph import NavGraph
from .plugins import hookimpl
from .types import PathStatus
from .world import World

__all__ = ["GraphFactory", "CHECKS", "check_graph_type", "parametrize", "check_name",
           "check_paths_match_reference", "check_reachable_and_areas_match_labelling",
           "check_dirty_covers_changes", "check_scheduler_replans",
           "check_bad_input_changes_nothing", "check_workers_agree",
           "check_points_locate_back", "check_options_are_read_or_refused",
           "check_update_vocabulary", "check_parameters_documented", "reference_distances",
           "reference_labels",
           "REQUIRED_ALGORITHMS", "FEWEST_EDGES", "VIEW_BUILDERS", "check_geometric"]

#: relative and absolute tolerance of cost comparisons
TOLERANCE = 1e-9
#: algorithms every graph must answer (``auto`` is always accepted)
REQUIRED_ALGORITHMS = ("auto", "dijkstra", "astar")
#: algorithms whose answer is the path with the fewest edges, not the cheapest
FEWEST_EDGES = frozenset({"bfs"})
#: algorithms that answer only from a derived view built on request, and the
#: public function (``"module:name"``, called with the graph) that builds it
VIEW_BUILDERS = {"ch": "navcore_csr:contract", "simplified": "navcore_csr:simplify"}

#: the graph id the checks use
GRAPH_ID = "conformance"
#: a frame budget that never binds
NO_BUDGET_MS = 1e6


# -- the factory -------------------------------------------------------------

class GraphFactory(abc.ABC):
    """Makes small graphs of one type for the checks, and updates for them.

    Subclass it and set ``graph_type``; implement ``build``,
    ``random_update`` and ``block_nodes``. Graphs of about 10 to 200 nodes
    keep the checks fast; make them varied (blocked nodes, several costs,
    parts that are cut off), since the checks only see what you build.
    """

    #: the ``type=`` name this factory builds
    graph_type: str = ""
    #: plugins to register in every world the kit makes (modules or objects)
    plugins: tuple = ()
    #: name in test ids and messages; ``graph_type`` when not set
    name: str | None = None
    #: algorithms (``"auto"`` among them when it means one) whose ``cost`` is
    #: the length of the polyline ``points`` (a navmesh's string-pulled path),
    #: not the cost of a walk on the CSR view; see :func:`check_geometric`
    geometric_algorithms: frozenset = frozenset()
    #: True when ``points`` is the drawn route (a road's shape between
    #: junctions): a polyline passing through every node's point in order,
    #: with more points between them; ``cost`` is still the walk's
    drawn_points: bool = False
    #: public functions (``"module:name"``, called with the graph) that build
    #: the derived views some algorithms answer from (``VIEW_BUILDERS``);
    #: a backend with its own hierarchy names its own builder here
    view_builders: dict = VIEW_BUILDERS

    @abc.abstractmethod
    def build(self, world, graph_id, rng) -> NavGraph:
        """Add a random small graph to ``world`` as ``graph_id`` and return
        it (``return world.add_graph(graph_id, type=..., ...)``). Use only
        ``rng`` (a ``numpy.random.Generator``) for randomness."""

    @abc.abstractmethod
    def random_update(self, graph, rng) -> dict:
        """The keyword arguments of one random ``World.update`` of ``graph``
        (e.g. ``{"cells": [(1, 2)], "walkable": False}`` for a grid).
        Make them varied: blocking and unblocking, cost changes, closing
        and opening edges, whatever your type supports."""

    @abc.abstractmethod
    def block_nodes(self, graph, nodes) -> dict:
        """The keyword arguments of a ``World.update`` that makes the node
        ids ``nodes`` (a list of ints) not walkable."""

    def make_world(self, **options) -> World:
        """A new world for one check: the built-in plugins and ``plugins``
        (entry points of other packages are not loaded). ``options`` are
        ``World`` keyword arguments (``workers=``, ``frame_budget_ms=``)."""
        return World(plugins=self.plugins, autoload=False, **options)

    def __str__(self) -> str:
        return self.name or self.graph_type or type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


# -- reference answers: plain Python over the CSR view --------------------------

class _View(NamedTuple):
    """The graph as the references see it: per node, the cheapest finite
    edge to each neighbour, and the walkable flags (Python lists)."""

    out: list          # u -> {v: least finite cost of an edge u -> v}
    walkable: list
    points: np.ndarray | None = None   # graph.points_of every node, or None
    #: a graph's off-mesh links (``_jumps``), ``()`` for none
    links: tuple = ()


class _Jump(NamedTuple):
    """An off-mesh link as the references see it."""

    u: int                   # the node under its start (``graph.locate``; -1: none)
    v: int                   # the node under its end
    back: bool               # whether it may be taken from end to start
    cost: float              # what taking it adds to a path's cost
    start: tuple             # its start and end points, as given
    end: tuple


def _view(graph) -> _View:
    csr = graph.csr
    offsets = np.asarray(csr.offsets).tolist()
    targets = np.asarray(csr.targets).tolist()
    cost = np.asarray(csr.cost, dtype=np.float64).tolist()
    out = []
    for u in range(graph.num_nodes):
        row = {}
        for e in range(offsets[u], offsets[u + 1]):
            c = cost[e]
            if c < math.inf and c < row.get(targets[e], math.inf):
                row[targets[e]] = c
        out.append(row)
    points = graph.points_of(np.arange(graph.num_nodes)) if graph.has_positions() else None
    return _View(out, [bool(x) for x in np.asarray(graph.walkable)], points, _jumps(graph))


def _jumps(graph) -> tuple:
    """A graph's off-mesh links as the references see them (``_Jump`` per
    link of ``graph.links``: its ``start``, ``end``, ``bidirectional`` and
    ``cost``): a link jumps from the node ``graph.locate`` gives for its
    start to the one for its end; ``()`` on a graph without links
    (``paths_follow_edges`` True, or no ``links``)."""
    links = getattr(graph, "links", None)
    if graph.paths_follow_edges or links is None:
        return ()
    out = []
    for i in range(len(links)):
        a, b = (tuple(float(x) for x in p) for p in (links.start[i], links.end[i]))
        out.append(_Jump(int(graph.locate(a)), int(graph.locate(b)),
                         bool(links.bidirectional[i]), float(links.cost[i]), a, b))
    return tuple(out)


def _hops_out(view, u):
    """The nodes one step from ``u``: along its finite edges and, on a
    graph with links, by the links that leave ``u`` (``(v, cost)`` pairs)."""
    yield from view.out[u].items()
    for a, b, back, c, _, _ in view.links:
        if a == u and b >= 0:
            yield b, c
        if back and b == u and a >= 0:
            yield a, c


def reference_distances(graph, source, *, view=None) -> dict:
    """Cost of the cheapest path from node ``source`` to every node it can
    reach on ``graph``'s CSR view (``{node: cost}``): textbook Dijkstra in
    plain Python, independent of navcore's kernels. A blocked node is never
    entered, an edge of infinite cost is closed; an empty dict when
    ``source`` is blocked. On a graph with off-mesh links each link is one
    more edge, from the node under its start to the node under its end
    (and back when bidirectional), at the link's cost (see the module's
    text): who reaches whom is then exact, the costs mix the CSR view's
    with the links'."""
    view = view or _view(graph)
    if not view.walkable[source]:
        return {}
    dist, done, heap = {source: 0.0}, set(), [(0.0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, c in _hops_out(view, u):
            if view.walkable[v] and d + c < dist.get(v, math.inf):
                dist[v] = d + c
                heapq.heappush(heap, (d + c, v))
    return dist


def _hops(view, source) -> dict:
    """Fewest edges (links counted as edges) from ``source`` to every node
    it can reach."""
    if not view.walkable[source]:
        return {}
    hops, queue = {source: 0}, deque([source])
    while queue:
        u = queue.popleft()
        for v, _ in _hops_out(view, u):
            if view.walkable[v] and v not in hops:
                hops[v] = hops[u] + 1
                queue.append(v)
    return hops


def reference_labels(graph, *, view=None) -> np.ndarray:
    """A component label per node (``-1`` for blocked nodes): walkable
    nodes share a label exactly when they are connected along finite edges,
    ignoring edge directions (weakly connected for directed graphs)."""
    view = view or _view(graph)
    n = len(view.out)
    both = [set() for _ in range(n)]
    for u in range(n):
        if view.walkable[u]:
            for v in view.out[u]:
                if view.walkable[v] and v != u:
                    both[u].add(v)
                    both[v].add(u)
    labels = [-1] * n
    nxt = 0
    for s in range(n):
        if view.walkable[s] and labels[s] < 0:
            labels[s] = nxt
            queue = deque([s])
            while queue:
                u = queue.popleft()
                for v in both[u]:
                    if labels[v] < 0:
                        labels[v] = nxt
                        queue.append(v)
            nxt += 1
    return np.array(labels, dtype=np.int64)


# -- helpers -------------------------------------------------------------------

def _fail(ctx, message):
    raise AssertionError(f"[{ctx}] {message}")


class _Context:
    """What a failure message says about where it happened: the factory,
    the seed, the step, and the updates applied so far."""

    def __init__(self, factory, seed, check):
        self.factory = factory
        self.head = f"{factory}, seed {seed}, {check}"
        self.step = "initial graph"
        self.updates = []

    def applied(self, params):
        self.updates.append(params)

    def __str__(self):
        s = f"{self.head}, {self.step}"
        if self.updates:
            text = "; ".join(_short(p) for p in self.updates[-6:])
            more = len(self.updates) - 6
            s += f", after updates {'... ' if more > 0 else ''}{text}"
        return s


def _short(value, limit=160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _build(factory, world, graph_id, rng, ctx) -> NavGraph:
    graph = factory.build(world, graph_id, rng)
    if not isinstance(graph, NavGraph) or world.graphs.get(graph_id) is not graph:
        _fail(ctx, f"factory.build must return world.add_graph({graph_id!r}, ...), "
                   f"got {graph!r}")
    if factory.graph_type and graph.kind != factory.graph_type:
        _fail(ctx, f"factory.build made a graph of type {graph.kind!r}, "
                   f"not {factory.graph_type!r}")
    return graph


def _update(world, graph_id, params, ctx, what="random_update"):
    if not isinstance(params, dict):
        _fail(ctx, f"factory.{what} must return a dict of World.update parameters, "
                   f"got {params!r}")
    try:
        world.update(graph_id, **params)
    except NavError as exc:
        _fail(ctx, f"World.update rejected factory.{what}'s parameters "
                   f"{_short(params)}: {type(exc).__name__}: {exc}")
    ctx.applied(params)


def _random_updates(factory, world, graph, rng, ctx, most=3):
    for _ in range(int(rng.integers(1, most + 1))):
        _update(world, graph.graph_id, factory.random_update(graph, rng), ctx)


def _rounds(factory, world, graph, rng, ctx, rounds):
    """The graph's CSR view for each of ``rounds`` rounds of a check: as
    built, then after a batch of random updates (applied by a tick) each."""
    for k in range(rounds):
        if k:
            _random_updates(factory, world, graph, rng, ctx)
            world.tick()
            ctx.step = f"round {k}"
        yield _view(graph)


def _close(world):
    world.close()


def _sample_nodes(graph, rng, k, blocked=1):
    """``k`` node ids, mostly walkable, ``blocked`` of them blocked when
    the graph has blocked nodes."""
    walk = np.flatnonzero(np.asarray(graph.walkable))
    shut = np.flatnonzero(~np.asarray(graph.walkable))
    out = []
    if shut.size:
        out += rng.choice(shut, size=min(blocked, k), replace=True).tolist()
    pool = walk if walk.size else np.arange(graph.num_nodes)
    out += rng.choice(pool, size=k - len(out), replace=True).tolist()
    return [int(x) for x in out]


def _pairs(graph, rng, starts=5, goals=6):
    """``(start, goals)`` groups: starts and goals mostly walkable, some
    blocked, and each start once as its own goal."""
    out = []
    for s in _sample_nodes(graph, rng, starts):
        out.append((s, [s] + _sample_nodes(graph, rng, goals)))
    return out


def _expected(view, dist, hops, s, t, algorithm):
    """``(status, cost or hops)`` the reference gives for ``s -> t``."""
    if not view.walkable[s]:
        return PathStatus.INVALID_START, None
    if not view.walkable[t]:
        return PathStatus.INVALID_GOAL, None
    table = hops if algorithm in FEWEST_EDGES else dist
    if t not in table:
        return PathStatus.UNREACHABLE, None
    return PathStatus.FOUND, table[t]


def _close_enough(a, b) -> bool:
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _check_result(ctx, view, result, s, t, algorithm, expected, call):
    """``result`` of ``call`` against the reference ``expected``."""
    status, value = expected
    got = result.status
    if got is not status:
        ref = f"{status.value}" + (f" (cost {value!r})" if value is not None
                                   and algorithm not in FEWEST_EDGES else "")
        _fail(ctx, f"{call} returned {got.value} (cost {result.cost!r}, nodes "
                   f"{_short(np.asarray(result.nodes).tolist())}); the reference "
                   f"Dijkstra on the CSR view says {ref}")
    if status is not PathStatus.FOUND:
        if len(result.nodes) or len(result.points) or result.cost != math.inf:
            _fail(ctx, f"{call} returned {got.value} with nodes "
                       f"{_short(np.asarray(result.nodes).tolist())} and cost "
                       f"{result.cost!r}; a result that is not found has no nodes, "
                       f"no points and cost inf")
        return
    walked = _walk_cost(ctx, view, result, s, t, call)
    if algorithm in FEWEST_EDGES:
        if len(result.nodes) - 1 != value:
            _fail(ctx, f"{call} found a path of {len(result.nodes) - 1} edges; the "
                       f"fewest possible is {value}")
        want = walked
    else:
        want = value
    if not _close_enough(result.cost, want):
        _fail(ctx, f"{call} found cost {result.cost!r}; the reference Dijkstra on the "
                   f"CSR view says {want!r} (nodes "
                   f"{_short(np.asarray(result.nodes).tolist())})")
    if not _close_enough(walked, result.cost):
        _fail(ctx, f"{call} reports cost {result.cost!r}, but its nodes' edges on the "
                   f"CSR view add up to {walked!r}")


def _walk_cost(ctx, view, result, s, t, call) -> float:
    """What ``result.nodes`` costs along the CSR view; fails unless it is a
    walk from ``s`` to ``t`` over walkable nodes along finite edges with one
    point per node."""
    nodes = _walk(ctx, view, result, s, t, call)
    total = sum(view.out[u][v] for u, v in zip(nodes[:-1], nodes[1:]))
    points = np.asarray(result.points)
    if getattr(ctx.factory, "drawn_points", False):
        _check_drawn(ctx, view, result, nodes, call)
    elif points.ndim != 2 or points.shape[0] != len(nodes):
        _fail(ctx, f"{call} returned {len(nodes)} nodes but points of shape "
                   f"{points.shape}: one point per node")
    return total


def _check_drawn(ctx, view, result, nodes, call):
    """A drawn route: ``points`` starts and ends at the ends' points and
    passes through every node's point in order."""
    points = np.asarray(result.points, dtype=np.float64)
    want = np.asarray(view.points[nodes], dtype=np.float64) if view.points is not None \
        else None
    if points.ndim != 2 or points.shape[0] < len(nodes) or points.shape[1] < 2:
        _fail(ctx, f"{call} returned {len(nodes)} nodes but points of shape "
                   f"{points.shape}: a drawn route has a point per node at least")
    if want is None or np.isnan(want).all():
        return
    if not _passes_through(points, want):
        _fail(ctx, f"{call}: its points do not pass through its nodes' points in order")


def _passes_through(points, want) -> bool:
    """Whether polyline ``points`` starts at ``want[0]``, ends at
    ``want[-1]`` and has every row of ``want`` in order (a drawn route)."""
    k = 0
    for p in points[:, :2]:
        if k < len(want) and np.array_equal(p, want[k, :2]):
            k += 1
    return k == len(want) and np.array_equal(points[0, :2], want[0, :2]) \
        and np.array_equal(points[-1, :2], want[-1, :2])


def _walk(ctx, view, result, s, t, call, jumps=()) -> list:
    """``result.nodes`` as a list; fails unless it is a walk from ``s`` to
    ``t`` over walkable nodes along finite edges of the CSR view, or (with
    ``jumps``, the links a path takes: ``_taken_links``) walks joined by
    those jumps in order, each from the node under its takeoff to the node
    under its landing."""
    nodes = np.asarray(result.nodes)
    if nodes.ndim != 1 or not (nodes.size == 0 or np.issubdtype(nodes.dtype, np.integer)):
        _fail(ctx, f"{call} returned nodes {nodes!r}: expected a 1-d integer array")
    nodes = nodes.tolist()
    if not nodes or nodes[0] != s or nodes[-1] != t:
        _fail(ctx, f"{call} returned nodes {_short(nodes)}: a path from {s} to {t} "
                   f"starts at {s} and ends at {t}")
    n = len(view.walkable)
    bad = [v for v in nodes if not 0 <= v < n or not view.walkable[v]]
    if bad:
        _fail(ctx, f"{call} returned nodes {_short(nodes)}, which pass through "
                   f"blocked or unknown node {bad[0]}")
    # the jumps taken so far, for every way to read the steps (an edge may
    # join the two nodes a link joins too)
    states = {0}
    for u, v in zip(nodes[:-1], nodes[1:]):
        after = {j for j in states if v in view.out[u]}
        after.update(j + 1 for j in states if j < len(jumps) and jumps[j][1:3] == (u, v))
        if not after:
            _fail(ctx, f"{call} returned nodes {_short(nodes)}, which step from {u} to "
                       f"{v}, but the CSR view has no finite edge {u} -> {v}"
                       + (", nor is it the jump of the next link it takes" if jumps
                          else ""))
        states = after
    if len(jumps) not in states:
        _fail(ctx, f"{call} takes {len(jumps)} links, but its nodes {_short(nodes)} "
                   f"do not jump between the nodes under them")
    return nodes


def _check_auto(factory, ctx, view, graph, result, s, t, call):
    """``result`` of an ``auto`` query against the reference."""
    expected = _expected(view, reference_distances(graph, s, view=view), {}, s, t, "auto")
    if "auto" in factory.geometric_algorithms:
        check_geometric(ctx, view, graph, result, s, t, expected, call)
    else:
        _check_result(ctx, view, result, s, t, "auto", expected, call)


def check_geometric(ctx, view, graph, result, s, t, expected, call):
    """A result of a geometric algorithm (``GraphFactory.geometric_algorithms``):
    its status is the reference's (found exactly when ``t`` is reachable),
    ``nodes`` is a walk from ``s`` to ``t`` along finite CSR edges over
    walkable nodes, ``cost`` is the length of the polyline ``points`` and
    its first and last points locate to ``s`` and ``t``. The cost is not
    compared with the reference: a geometric path is no walk on the CSR
    view."""
    status, _ = expected
    if result.status is not status:
        _fail(ctx, f"{call} returned {result.status.value}; the reference Dijkstra on the "
                   f"CSR view says {status.value}")
    if status is not PathStatus.FOUND:
        if len(result.nodes) or len(result.points) or result.cost != math.inf:
            _fail(ctx, f"{call} returned {result.status.value} with nodes, points or a "
                       f"finite cost; a result that is not found has none")
        return
    _check_polyline(ctx, view, graph, result, s, t, call, "a path")


def _check_polyline(ctx, view, graph, result, s, end, call, what):
    """``result`` (``what``: a path, a partial path) of a geometric
    algorithm: ``nodes`` a walk from ``s`` to ``end`` along finite CSR
    edges over walkable nodes, ``cost`` the length of the polyline
    ``points``, whose first and last points locate to ``s`` and ``end``;
    on a graph with links, walks joined by the links ``result`` takes
    (``_taken_links``), ``cost`` the polyline's length without those jumps
    plus their costs."""
    points = np.asarray(result.points, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] < 1 or points.shape[1] < 2:
        _fail(ctx, f"{call} returned {what} with points of shape {points.shape}")
    jumps = _taken_links(ctx, view, graph, result, points, call)
    _walk(ctx, view, result, s, end, call, jumps)
    legs = np.sqrt((np.diff(_ground(graph, points), axis=0) ** 2).sum(axis=1))
    at = [k for k, _, _, _ in jumps]
    length = float(np.delete(legs, at).sum())
    charged = sum(c for _, _, _, c in jumps)
    if not math.isclose(result.cost, length + charged, rel_tol=TOLERANCE,
                        abs_tol=TOLERANCE):
        more = f" and its links charge {charged!r}" if jumps else ""
        _fail(ctx, f"{call} reports {what} of cost {result.cost!r}, but its points make a "
                   f"polyline of length {length!r}" + more)
    _check_ends_locate(ctx, graph.locate, result, s, end, call)


def _taken_links(ctx, view, graph, result, points, call) -> list:
    """The off-mesh links ``result`` takes (``PathResult.links``), each
    ``(k, u, v, cost)``: it jumps from ``points[k]``, on node ``u`` (the
    node under the link's start, or under its end when taken back), to
    ``points[k + 1]`` on node ``v``, at the link's cost. Fails for a link
    the graph has not, a jump that is not one of the link's, points out
    of order."""
    taken = list(result.links)
    if not taken:
        return []
    if not view.links:
        _fail(ctx, f"{call} reports taking links {taken}, but the graph has no "
                   f"off-mesh links")
    out, last = [], -1
    for link in taken:
        i, k = int(link.link), int(link.point)
        if not 0 <= i < len(view.links):
            _fail(ctx, f"{call} takes link {i}; the graph has {len(view.links)}")
        if not last < k < len(points) - 1:
            _fail(ctx, f"{call} takes link {i} at point {k}: not after the previous "
                       f"link's ({last}) and before its last point ({len(points) - 1})")
        last = k
        u, v = (int(graph.locate(tuple(float(x) for x in points[j, :3])))
                for j in (k, k + 1))
        a, b, back, c = view.links[i][:4]
        if (u, v) != (a, b) and not (back and (u, v) == (b, a)):
            way = f"{a} -> {b}" + (" or back" if back else " (one way)")
            _fail(ctx, f"{call} takes link {i} from point {k} on node {u} to the next on "
                       f"node {v}, but the link joins the nodes under its start and end, "
                       f"{way}")
        out.append((k, u, v, c))
    return out


def _is_3d(graph) -> bool:
    """Whether ``graph`` is of a 3D level: its query points are ``(x, y,
    z)``, ``points_of`` gives the nodes' points on the ground plane,
    ``to_ground(points)`` takes 3D points there and ``points_on(nodes,
    ground)`` lifts ground points onto their nodes (the navmesh plugin's
    ``LayeredMeshGraph``)."""
    return hasattr(graph, "to_ground") and hasattr(graph, "points_on")


def _ground(graph, points) -> np.ndarray:
    """``(k, 2)``: where ``points`` lie on the plane a geometric path's
    cost is measured in: their first two coordinates, or on a graph of a
    3D level (points ``(k, 3)``) its ground plane (``graph.to_ground``)."""
    if points.shape[1] == 3 and _is_3d(graph):
        return graph.to_ground(points)
    return points[:, :2]


def _check_ends_locate(ctx, locate, result, s, t, call):
    """The first and last points of ``result`` locate to ``s`` and ``t``
    (located with all their coordinates: a 3D level's on their floor)."""
    points = np.asarray(result.points)
    ends = [locate(tuple(float(x) for x in points[i, :3])) for i in (0, -1)]
    if ends != [s, t]:
        _fail(ctx, f"{call}: its first and last points locate to nodes {ends}, "
                   f"not [{s}, {t}]")


def _builder(name, builders=VIEW_BUILDERS):
    module, _, attr = builders[name].partition(":")
    return getattr(importlib.import_module(module), attr)


class _Observer:
    """A run-time plugin that records the dirty nodes of every update."""

    def __init__(self):
        self.calls = []

    @hookimpl
    def navcore_graph_updated(self, graph_id, graph, dirty):
        self.calls.append((graph_id, np.array(dirty, copy=True)))


class _State(NamedTuple):
    walkable: np.ndarray
    offsets: np.ndarray
    targets: np.ndarray
    cost: np.ndarray
    version: int


def _state(graph) -> _State:
    csr = graph.csr
    return _State(np.array(graph.walkable, dtype=bool), np.array(csr.offsets),
                  np.array(csr.targets), np.array(csr.cost, dtype=np.float64),
                  graph.version)


def _differences(a: _State, b: _State) -> list:
    out = []
    for name in ("walkable", "offsets", "targets"):
        x, y = getattr(a, name), getattr(b, name)
        if x.shape != y.shape or not np.array_equal(x, y):
            out.append(name)
    if a.cost.shape != b.cost.shape or not np.array_equal(a.cost, b.cost, equal_nan=True):
        out.append("csr cost")
    if a.version != b.version:
        out.append(f"version ({a.version} -> {b.version})")
    return out


def _edge_ends_changed(a: _State, b: _State) -> set:
    """Both ends of every edge whose cost differs between ``a`` and ``b``
    (or which exists in one only)."""
    if np.array_equal(a.offsets, b.offsets) and np.array_equal(a.targets, b.targets):
        same = (a.cost == b.cost) | (np.isnan(a.cost) & np.isnan(b.cost))
        pos = np.flatnonzero(~same)
        rows = np.repeat(np.arange(a.offsets.size - 1), np.diff(a.offsets))
        return set(rows[pos].tolist()) | set(a.targets[pos].tolist())

    def pairs(s):
        rows = np.repeat(np.arange(s.offsets.size - 1), np.diff(s.offsets))
        d = {}
        for u, v, c in zip(rows.tolist(), s.targets.tolist(), s.cost.tolist()):
            d.setdefault((u, v), []).append(c)
        return {k: sorted(v) for k, v in d.items()}
    pa, pb = pairs(a), pairs(b)
    out = set()
    for key in pa.keys() | pb.keys():
        if pa.get(key) != pb.get(key):
            out.update(key)
    return out


def _result_key(result):
    return (result.status.value, result.cost, np.asarray(result.nodes).tolist())


# -- the checks ----------------------------------------------------------------

def check_paths_match_reference(factory, seed=0, *, rounds=3):
    """``find_path`` agrees with a reference Dijkstra on the CSR view, for
    every listed algorithm, on the built graph and after ``rounds - 1``
    batches of random updates. Returns how many searches (queries between
    distinct walkable nodes) each algorithm answered and declined:
    ``{"astar": {"answered": 240, "declined": 0}, "jps": {...}, ...}``."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "paths_match_reference")
    world = factory.make_world()
    outcome = {}
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        listed = world.algorithms(GRAPH_ID)
        missing = [a for a in REQUIRED_ALGORITHMS if a != "auto" and a not in listed]
        if missing:
            _fail(ctx, f"world.algorithms lists {listed}, without {missing}; every graph "
                       f"needs {list(REQUIRED_ALGORITHMS)}")
        for view in _rounds(factory, world, graph, rng, ctx, rounds):
            groups = _pairs(graph, rng)
            # every listed algorithm, with views as the updates left them
            # (stale ones must decline, patched ones must be right) ...
            _compare(world, graph, view, groups, ["auto"] + listed, ctx, outcome, "",
                     factory.geometric_algorithms)
            # ... then the derived views built anew, and "auto" using them
            built = []
            for name in listed:
                if name in factory.view_builders:
                    try:
                        _builder(name, factory.view_builders)(graph)
                        built.append(name)
                    except NavError:
                        pass              # its queries must decline then
                    except ImportError:
                        pass
            if built:
                _compare(world, graph, view, groups, ["auto"] + built, ctx, outcome,
                         f" with {', '.join(built)} built", factory.geometric_algorithms)
    finally:
        _close(world)
    return outcome


def _check_version(ctx, world, graph, result, call, seen=None):
    """``result`` (just computed) carries ``graph``'s version, is current,
    and (with ``seen``, the results of earlier queries) is no earlier
    result's object."""
    if result.version != graph.stamp():
        _fail(ctx, f"{call} carries version {result.version!r}, not the graph's "
                   f"{graph.stamp()!r} (World sets PathResult.version on each result)")
    if not world.is_current(result):
        _fail(ctx, f"{call}: World.is_current is False for a result just computed")
    if seen is not None:
        if any(r is result for r in seen):
            _fail(ctx, f"{call} returned the PathResult object of an earlier query; "
                       f"World writes each result's version on it: return a new "
                       f"PathResult per query")
        seen.append(result)


def _compare(world, graph, view, groups, algorithms, ctx, outcome, note,
             geometric=frozenset()):
    seen = []
    legs = {}                      # find_path costs to and from links' ends
    for s, goals in groups:
        dist = reference_distances(graph, s, view=view)
        hops = _hops(view, s)
        for t in goals:
            search = s != t and view.walkable[s] and view.walkable[t]
            for algo in algorithms:
                counts = outcome.setdefault(algo, {"answered": 0, "declined": 0})
                call = f"find_path({s}, {t}, algorithm={algo!r}){note}"
                try:
                    result = world.find_path(graph.graph_id, s, t, algorithm=algo)
                except QueryError as exc:
                    if algo in REQUIRED_ALGORITHMS:
                        _fail(ctx, f"{call} raised QueryError: {exc}; every graph must "
                                   f"answer {list(REQUIRED_ALGORITHMS)}")
                    counts["declined"] += 1
                    continue
                except NavError as exc:
                    _fail(ctx, f"{call} raised {type(exc).__name__}: {exc}")
                _check_version(ctx, world, graph, result, call, seen)
                expected = _expected(view, dist, hops, s, t, algo)
                if algo in geometric:
                    check_geometric(ctx, view, graph, result, s, t, expected, call)
                else:
                    _check_result(ctx, view, result, s, t, algo, expected, call)
                if view.links and algo == "auto" and search:
                    _check_link_detours(ctx, world, graph, view, s, t, result, call, legs)
                counts["answered"] += search


def _check_link_detours(ctx, world, graph, view, s, t, result, call, legs):
    """On a graph with off-mesh links, ``result`` (``call``, from ``s`` to
    ``t``) costs no more than going to a link's takeoff, taking the link
    and going on from where it lands, each way there and on being
    ``find_path``'s own answer (kept in ``legs``): the cheapest path meets
    every such inequality, so a search that misses a cheaper route
    through a link fails one. Links whose ends lie on no walkable node
    are left out (their takeoffs are no query points)."""
    def cost(a, b):
        if (a, b) not in legs:
            r = world.find_path(graph.graph_id, a, b)
            legs[a, b] = r.cost if r.found else math.inf
        return legs[a, b]

    have = result.cost if result.found else math.inf
    for i, link in enumerate(view.links):
        if link.u < 0 or link.v < 0 or not (view.walkable[link.u] and view.walkable[link.v]):
            continue
        for a, b in ((link.start, link.end), (link.end, link.start))[:1 + link.back]:
            via = cost(s, a) + link.cost + cost(b, t)
            # 1e-6: a link takes off and lands a hair inside the polygon
            # under its end points, the legs end at those points
            if have > via + 1e-6 + TOLERANCE * via:
                _fail(ctx, f"{call} costs {have!r}, but by link {i} it costs {via!r}: "
                           f"find_path({s}, {a}) {cost(s, a)!r}, the link {link.cost!r}, "
                           f"find_path({b}, {t}) {cost(b, t)!r}")


#: expansions per step a sliced search is run with: every one must give
#: ``find_path``'s result
SLICES = (1, 7, 100)


def check_sliced_equals_whole(factory, seed=0, *, rounds=2):
    """``begin_search`` stepped 1, 7 or 100 expansions at a time finishes
    with ``find_path``'s result (status, cost, nodes, ``expanded``), for
    every listed algorithm; ``find_path(max_nodes=k, partial=True)`` gives
    a ``partial`` path that is a walk from the start whose cost is the
    reference distance to its last node (for a geometric algorithm: the
    length of its polyline, whose ends locate to the start and that node;
    on a graph with links, walks joined by the links it takes), or the
    whole result when ``k`` covers the search (``k`` the expansions
    ``find_path`` reports finishes it); a larger ``k`` never answers
    less (``budget_exceeded``, then ``partial``, then ``found``: ``k`` of
    1, 2, half, all but one and all of the expansions). A search whose
    graph changes between steps finishes as ``find_path`` does on the
    changed graph. Returns how many searches were stepped and how many
    partial paths were checked."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "sliced_equals_whole")
    world = factory.make_world()
    counts = {"stepped": 0, "partial": 0}
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        algorithms = ["auto"] + world.algorithms(GRAPH_ID)
        for view in _rounds(factory, world, graph, rng, ctx, rounds):
            for s, goals in _pairs(graph, rng, starts=3, goals=4):
                dist = reference_distances(graph, s, view=view)
                for t in goals:
                    for algo in algorithms:
                        _check_sliced(world, graph, view, dist, s, t, algo, ctx, counts)
        _check_restart(factory, world, graph, rng, algorithms, ctx)
    finally:
        _close(world)
    return counts


def _check_sliced(world, graph, view, dist, s, t, algo, ctx, counts):
    call = f"find_path({s}, {t}, algorithm={algo!r})"
    try:
        whole = world.find_path(graph.graph_id, s, t, algorithm=algo)
    except QueryError as exc:
        try:                        # declined whole: declined stepped too
            world.begin_search(graph.graph_id, s, t, algorithm=algo).step(1)
        except QueryError:
            return
        _fail(ctx, f"{call} raised QueryError ({exc}), but its search stepped did not")
    want = _result_key(whole) + (whole.expanded,)
    for budget in SLICES:
        search = world.begin_search(graph.graph_id, s, t, algorithm=algo)
        steps = 0
        while not search.step(budget):
            steps += 1
            if steps > whole.expanded + 2:
                _fail(ctx, f"begin_search of {call} stepped {budget} at a time is not "
                           f"finished after {steps} steps; find_path expanded "
                           f"{whole.expanded}")
        got = search.result()
        if _result_key(got) + (got.expanded,) != want:
            _fail(ctx, f"begin_search of {call} stepped {budget} at a time finished with "
                       f"{got!r} nodes {_short(np.asarray(got.nodes).tolist())}; find_path "
                       f"gives {whole!r} nodes {_short(np.asarray(whole.nodes).tolist())}")
        counts["stepped"] += 1
    if whole.status is not PathStatus.FOUND or whole.expanded < 2:
        return
    # budgets from one expansion to the whole search's: a larger one never
    # answers less (budget_exceeded, then partial, then found)
    caps = sorted({1, 2, whole.expanded // 2, whole.expanded - 1, whole.expanded})
    before = None
    for cap in caps:
        part = world.find_path(graph.graph_id, s, t, algorithm=algo, max_nodes=cap,
                               partial=True)
        pcall = f"{call[:-1]}, max_nodes={cap}, partial=True)"
        _check_capped(ctx, view, graph, dist, whole, part, s, algo, pcall, counts)
        if before is not None and _RANK[part.status] < _RANK[before[1].status]:
            _fail(ctx, f"{pcall} returned {part.status.value}, but with max_nodes="
                       f"{before[0]} it returned {before[1].status.value}: a larger budget "
                       f"answers no less (budget_exceeded, partial, found in that order)")
        before = (cap, part)
    if before[1].status is not PathStatus.FOUND:
        _fail(ctx, f"{pcall} returned {before[1].status.value}; find_path expands "
                   f"{whole.expanded} nodes, so that budget finishes it")


#: the answers of a capped search, from less to more
_RANK = {PathStatus.BUDGET_EXCEEDED: 0, PathStatus.PARTIAL: 1, PathStatus.FOUND: 2}


def _check_capped(ctx, view, graph, dist, whole, part, s, algo, pcall, counts):
    """``part``, the answer of ``pcall`` (``find_path`` with ``max_nodes``
    and ``partial=True``): the whole result, ``budget_exceeded`` or a
    partial path from ``s`` (on a graph with links, walks joined by them)."""
    if part.status is PathStatus.FOUND:
        if _result_key(part) != _result_key(whole):
            _fail(ctx, f"{pcall} found {part!r}; find_path gives {whole!r}")
        return
    if part.status is PathStatus.BUDGET_EXCEEDED:
        return                      # a search that cannot stop midway
    if part.status is not PathStatus.PARTIAL or not len(part.nodes):
        _fail(ctx, f"{pcall} returned {part!r}: expected found, partial (with a path) "
                   f"or budget_exceeded")
    end = int(part.nodes[-1])
    if algo in ctx.factory.geometric_algorithms:
        _check_polyline(ctx, view, graph, part, s, end, pcall, "a partial path")
        counts["partial"] += 1
        return
    walked = _walk_cost(ctx, view, part, s, end, pcall)
    if end not in dist or not _close_enough(part.cost, dist[end]) \
            or not _close_enough(walked, part.cost):
        _fail(ctx, f"{pcall} returned a partial path to {end} of cost {part.cost!r} "
                   f"(its edges add up to {walked!r}); the reference distance to {end} "
                   f"is {dist.get(end)!r}")
    counts["partial"] += 1


def _check_restart(factory, world, graph, rng, algorithms, ctx):
    """A search not finished by its first step, whose graph then
    changes, finishes as ``find_path`` does on the changed graph."""
    for s, goals in _pairs(graph, rng, starts=2, goals=2):
        for t in goals:
            for algo in algorithms:
                try:
                    search = world.begin_search(graph.graph_id, s, t, algorithm=algo)
                    if search.step(1):
                        continue        # finished before the graph changed
                except QueryError:
                    continue            # declined (as find_path declines it)
                _update(world, graph.graph_id, factory.random_update(graph, rng), ctx)
                world.tick()
                try:
                    while not search.step(7):
                        pass
                except QueryError as exc:
                    # refused on the changed graph (a hierarchy gone stale):
                    # so must find_path be
                    try:
                        world.find_path(graph.graph_id, s, t, algorithm=algo)
                    except QueryError:
                        continue
                    _fail(ctx, f"begin_search({s}, {t}, algorithm={algo!r}) stepped across "
                               f"an update raised QueryError ({exc}); find_path on the "
                               f"updated graph answers")
                got = search.result()
                whole = world.find_path(graph.graph_id, s, t, algorithm=algo)
                if _result_key(got) != _result_key(whole):
                    _fail(ctx, f"begin_search({s}, {t}, algorithm={algo!r}) stepped across "
                               f"an update finished with {got!r}; find_path on the "
                               f"updated graph gives {whole!r}")


def check_reachable_and_areas_match_labelling(factory, seed=0, *, rounds=4):
    """``areas``, ``area``, ``reachable`` and ``reachable_many`` agree with
    a full labelling (and, on directed graphs, ``reachable`` with a forward
    search) on the built graph and after random updates."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "reachable_and_areas_match_labelling")
    world = factory.make_world()
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        for k in range(rounds):
            if k:
                _random_updates(factory, world, graph, rng, ctx)
                world.tick()
                ctx.step = f"round {k}"
            view = _view(graph)
            labels = reference_labels(graph, view=view)
            areas = np.asarray(world.areas(gid))
            _same_partition(ctx, areas, labels)
            for n in _sample_nodes(graph, rng, 8, blocked=2):
                one = world.area(gid, n)
                if one != areas[n]:
                    _fail(ctx, f"area({n}) = {one} but areas()[{n}] = {areas[n]}")
            a = np.array(_sample_nodes(graph, rng, 30, blocked=3))
            b = np.array(_sample_nodes(graph, rng, 30, blocked=3))
            b[:10] = rng.permutation(a[:10])      # pairs near each other too
            got = []
            for s, t in zip(a.tolist(), b.tolist()):
                if graph.directed or view.links:    # links may be one-way
                    want = view.walkable[t] and t in _hops(view, s)
                else:
                    want = bool(labels[s] >= 0 and labels[s] == labels[t])
                r = world.reachable(gid, s, t)
                if r is not want:
                    kind = "a forward search" if graph.directed else "the labelling"
                    _fail(ctx, f"reachable({s}, {t}) is {r!r}; {kind} says {want}")
                got.append(r)
            many = np.asarray(world.reachable_many(gid, a, b)).tolist()
            if many != got:
                i = next(i for i, (x, y) in enumerate(zip(many, got)) if x != y)
                _fail(ctx, f"reachable_many disagrees with reachable at pair "
                           f"({a[i]}, {b[i]}): {many[i]} vs {got[i]}")
    finally:
        _close(world)


def _same_partition(ctx, areas, labels):
    if areas.shape != labels.shape:
        _fail(ctx, f"areas() has shape {areas.shape}, expected ({labels.size},)")
    blocked = labels < 0
    wrong = np.flatnonzero((areas < 0) != blocked)
    if wrong.size:
        n = int(wrong[0])
        _fail(ctx, f"areas()[{n}] = {areas[n]}, but node {n} is "
                   f"{'blocked (-1 expected)' if blocked[n] else 'walkable'}")
    ours, truth = {}, {}
    for n in np.flatnonzero(~blocked).tolist():
        a, t = int(areas[n]), int(labels[n])
        if ours.setdefault(a, t) != t:
            m = next(m for m in range(n) if labels[m] == ours[a] and areas[m] == a)
            _fail(ctx, f"areas() puts nodes {m} and {n} in one area ({a}), but they "
                       f"are not connected")
        if truth.setdefault(t, a) != a:
            m = next(m for m in range(n) if labels[m] == t and areas[m] == truth[t])
            _fail(ctx, f"areas() puts nodes {m} and {n} in areas {truth[t]} and {a}, "
                       f"but they are connected")


def check_dirty_covers_changes(factory, seed=0, *, rounds=5):
    """Every node whose walkable flag changed, or which has an incident edge
    (out or in) whose cost changed, is in the ``dirty`` array of the
    ``navcore_graph_updated`` call (a node a batch added counts as blocked
    before it); the array is sorted int32 node ids; ``version`` grows by
    exactly one with every applied batch (derived views follow a graph
    batch by batch by it)."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "dirty_covers_changes")
    world = factory.make_world()
    observer = _Observer()
    world.plugins.register(observer, name="navcore.testing.observer")
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        for k in range(1, rounds + 1):
            before = _state(graph)
            _random_updates(factory, world, graph, rng, ctx)
            ctx.step = f"tick {k}"
            observer.calls.clear()
            world.tick()
            after = _state(graph)
            calls = [d for gid, d in observer.calls if gid == graph.graph_id]
            if len(calls) != 1:
                _fail(ctx, f"navcore_graph_updated was called {len(calls)} times for the "
                           f"tick that applied the batch, expected once")
            dirty = calls[0]
            if dirty.dtype != np.int32 or dirty.ndim != 1:
                _fail(ctx, f"dirty is {dirty.dtype} of shape {dirty.shape}; expected a "
                           f"1-d int32 array")
            if dirty.size and (np.any(np.diff(dirty) < 0) or dirty[0] < 0
                               or dirty[-1] >= graph.num_nodes):
                _fail(ctx, f"dirty must be sorted node ids in range, got "
                           f"{_short(dirty.tolist())}")
            if after.version != before.version + 1:
                _fail(ctx, f"version went from {before.version} to {after.version} with "
                           f"one applied batch; bump it exactly once per batch")
            # a batch may add nodes (never remove them): a new node counts
            # as blocked before it
            was = np.zeros(after.walkable.size, dtype=bool)
            was[:before.walkable.size] = before.walkable
            flipped = set(np.flatnonzero(was != after.walkable).tolist())
            edges = _edge_ends_changed(before, after)
            missing = sorted((flipped | edges) - set(dirty.tolist()))
            if missing:
                why = []
                for n in missing[:5]:
                    why.append(f"{n} ({'walkable flag' if n in flipped else 'edge cost'}"
                               f" changed)")
                _fail(ctx, f"dirty {_short(dirty.tolist())} misses {len(missing)} changed "
                           f"node(s): {', '.join(why)}")
    finally:
        _close(world)


def check_scheduler_replans(factory, seed=0, *, ticks=10):
    """A path found by ``request_path(..., repath=True)`` is planned again
    when a node in its middle is blocked (``factory.block_nodes``), and the
    new result is the reference answer on the changed graph."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "scheduler_replans")
    world = factory.make_world(frame_budget_ms=NO_BUDGET_MS)
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        if world.scheduler is None:
            _fail(ctx, "world.scheduler is None: the scheduler plugin is not loaded")
        view = _view(graph)
        s, t = _far_pair(view, rng, ctx)
        call = f"request_path({s}, {t}, repath=True)"
        handle = world.request_path(gid, s, t, repath=True)
        _tick_until(world, ctx, lambda: handle.done, ticks, call)
        first = handle.result()
        _check_auto(factory, ctx, view, graph, first, s, t, call)
        _check_version(ctx, world, graph, first, call)
        nodes = np.asarray(first.nodes).tolist()
        mid = nodes[len(nodes) // 2]
        _update(world, gid, factory.block_nodes(graph, [mid]), ctx, "block_nodes")
        ctx.step = f"after blocking node {mid} of the path {_short(nodes)}"
        _tick_until(world, ctx, lambda: handle.repaths >= 1, ticks, call,
                    "planned again")
        if graph.walkable[mid]:
            _fail(ctx, f"factory.block_nodes(graph, [{mid}]) left node {mid} walkable")
        if world.is_current(first):
            _fail(ctx, f"World.is_current is True for the first result of {call}, whose "
                       f"node {mid} was blocked since")
        view = _view(graph)
        _check_auto(factory, ctx, view, graph, handle.result(), s, t, f"the re-planned {call}")
        _check_version(ctx, world, graph, handle.result(), f"the re-planned {call}")
    finally:
        _close(world)


def _far_pair(view, rng, ctx):
    """Walkable ``(s, t)`` at least two edges apart, so that every path
    between them has a node in its middle."""
    starts = [n for n, ok in enumerate(view.walkable) if ok]
    rng.shuffle(starts)
    for s in starts:
        far = sorted(t for t, h in _hops(view, s).items() if h >= 2)
        if far:
            return s, int(rng.choice(far))
    _fail(ctx, "no two nodes of the factory's graph are two or more edges apart; "
               "make its graphs larger or better connected")


def _tick_until(world, ctx, done, ticks, call, what="served"):
    for _ in range(ticks):
        world.tick()
        if done():
            return
    _fail(ctx, f"{call} was not {what} within {ticks} ticks with an unlimited budget")


def _bad_nodes(graph):
    """Values that are no node of ``graph`` and no point: ids out of range
    or negative, floats, strings, None, a bool, NaN and infinite points."""
    n = graph.num_nodes
    return [n, n + 7, np.int64(n), -1, -n, 2.5, 1.0, "a", "12", None, True,
            (math.nan, math.nan), (math.nan, 0.0), [math.inf, 0.0]]


def check_bad_input_changes_nothing(factory, seed=0):
    """Malformed input raises a ``NavError`` subclass, queues nothing and
    changes nothing: node ids out of range or negative, floats, strings,
    None, booleans, NaN points (as starts, goals, ``reachable`` ends,
    ``area``, ``path_costs``, ``distance_matrix`` and ``request_path``
    ends), unknown algorithm names, unknown or missing ``update``
    parameters and unknown graph ids. After each, the walkable mask, the
    CSR arrays and ``version`` are as they were and a valid query gives
    the same answer."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "bad_input_changes_nothing")
    world = factory.make_world(frame_budget_ms=NO_BUDGET_MS)
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        s, t = _sample_nodes(graph, rng, 2, blocked=0)
        update = factory.random_update(graph, rng)

        def answers():
            return (_result_key(world.find_path(gid, s, t)), world.reachable(gid, s, t),
                    np.asarray(world.areas(gid)).tolist())

        baseline, state = answers(), _state(graph)

        def expect_error(label, fn):
            try:
                fn()
            except NavError:
                pass
            except Exception as exc:
                _fail(ctx, f"{label} raised {type(exc).__name__}: {exc}; bad input must "
                           f"raise a navcore.NavError subclass")
            else:
                _fail(ctx, f"{label} raised nothing; bad input must raise a "
                           f"navcore.NavError subclass")
            after = _differences(state, _state(graph))
            if after:
                _fail(ctx, f"{label} raised, but changed the graph: {', '.join(after)}")
            if world.pending_updates(gid):
                _fail(ctx, f"{label} raised, but queued an update")
            if answers() != baseline:
                _fail(ctx, f"after {label}, find_path({s}, {t}), reachable or areas "
                           f"answer differently")

        for bad in _bad_nodes(graph):
            b = _short(bad)
            expect_error(f"find_path({b}, {t})", lambda: world.find_path(gid, bad, t))
            expect_error(f"find_path({s}, {b})", lambda: world.find_path(gid, s, bad))
            expect_error(f"reachable({b}, {t})", lambda: world.reachable(gid, bad, t))
            expect_error(f"reachable({s}, {b})", lambda: world.reachable(gid, s, bad))
            expect_error(f"area({b})", lambda: world.area(gid, bad))
            expect_error(f"path_costs([[{s}, {b}]])",
                         lambda: world.path_costs(gid, [[s, bad]]))
            expect_error(f"distance_matrix([{b}], [{t}])",
                         lambda: world.distance_matrix(gid, [bad], [t]))

            def requested(bad=bad):
                h = world.request_path(gid, bad, t)
                world.tick()
                return h.result()
            expect_error(f"request_path({b}, {t}), then tick and result()", requested)
        for algo in ("no-such-algorithm", "", "AUTO", None, 3):
            expect_error(f"find_path({s}, {t}, algorithm={algo!r})",
                         lambda: world.find_path(gid, s, t, algorithm=algo))
        for params in ({"no_such_parameter": 1}, {**update, "no_such_parameter": 1}, {}):
            expect_error(f"update(**{_short(params)})", lambda: world.update(gid, **params))
        expect_error("find_path on an unknown graph id",
                     lambda: world.find_path("no such graph", s, t))
        expect_error("update on an unknown graph id",
                     lambda: world.update("no such graph", **update))
        world.tick()
        after = _differences(state, _state(graph))
        if after:
            _fail(ctx, f"a tick after the rejected input changed the graph: "
                       f"{', '.join(after)}")
    finally:
        _close(world)


def check_workers_agree(factory, seed=0, *, frames=5, requests=6):
    """The same script of ``request_path`` calls (some with ``repath``),
    updates of two graphs and ticks gives identical results (status, cost,
    nodes, re-plans) and graphs with ``workers=0`` and ``workers=2``."""
    ctx = _Context(factory, seed, "workers_agree")
    runs = {w: _script(factory, seed, w, frames, requests,
                       _Context(factory, seed, f"workers_agree (workers={w})"))
            for w in (0, 2)}
    ctx.step = f"after {frames} frames of requests and updates"
    (res0, walk0), (res2, walk2) = runs[0], runs[2]
    for (label, a), (_, b) in zip(res0, res2):
        if a != b:
            _fail(ctx, f"{label} gave {_short(a, 300)} with workers=0 but "
                       f"{_short(b, 300)} with workers=2")
    for gid in walk0:
        if not np.array_equal(walk0[gid], walk2[gid]):
            _fail(ctx, f"graph {gid!r} ended with other walkable nodes with workers=2")


def _script(factory, seed, workers, frames, requests, ctx):
    rng = np.random.default_rng(seed)
    world = factory.make_world(workers=workers, frame_budget_ms=NO_BUDGET_MS)
    if workers and hasattr(world.scheduler, "min_chunk_ms"):
        world.scheduler.min_chunk_ms = 0.0     # every search on a worker thread
    try:
        graphs = [_build(factory, world, gid, rng, ctx) for gid in ("a", "b")]
        handles = []
        for frame in range(frames):
            for k in range(requests):
                g = graphs[k % 2]
                s, t = _sample_nodes(graph=g, rng=rng, k=2, blocked=int(k == 0))
                repath = bool(rng.random() < 0.5)
                label = f"request {len(handles)} ({g.graph_id!r}: {s} -> {t}, " \
                        f"repath={repath}, frame {frame})"
                handles.append((label, world.request_path(g.graph_id, s, t,
                                                          repath=repath)))
            for g in graphs:
                _random_updates(factory, world, g, rng, ctx, most=2)
            world.tick()
        for _ in range(20):
            if all(h.done for _, h in handles):
                break
            world.tick()
        results = []
        for label, h in handles:
            if not h.done:
                _fail(ctx, f"{label} was never served with workers={workers}")
            try:
                key = _result_key(h.result())
            except NavError as exc:          # the same error in both runs is fine
                key = (type(exc).__name__, str(exc))
            results.append((label, (*key, h.repaths)))
        return results, {g.graph_id: np.array(g.walkable) for g in graphs}
    finally:
        _close(world)


def check_points_locate_back(factory, seed=0, *, nodes=30):
    """On graphs with geometry: a found path's ``points`` are
    ``graph.points_of(nodes)``, a node's point locates back to that node (or
    to one at the same point), and ``find_path`` between two nodes' points
    answers as between the nodes. Graphs without positions are skipped."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "points_locate_back")
    world = factory.make_world()
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        sample = np.array(_sample_nodes(graph, rng, nodes, blocked=3))
        pts = np.asarray(graph.points_of(sample), dtype=np.float64)
        if pts.shape != (sample.size, 2):
            _fail(ctx, f"points_of({sample.size} nodes) has shape {pts.shape}, "
                       f"expected ({sample.size}, 2)")
        if np.isnan(pts).all():
            return                                  # no geometry: nothing to check
        everything = np.asarray(graph.points_of(np.arange(graph.num_nodes)))
        if _is_3d(graph):            # a 3D level: its points on their floors
            pts = graph.points_on(sample, pts)
            everything = graph.points_on(np.arange(graph.num_nodes), everything)
        for n, p in zip(sample.tolist(), pts):
            point = tuple(float(x) for x in p)
            m = world.locate(gid, point)
            if m != n and not (0 <= m < graph.num_nodes and np.array_equal(everything[m], p)):
                _fail(ctx, f"node {n} is at {point} (points_of), but locate({point}) "
                           f"gives node {m}"
                           + (f" at {tuple(everything[m].tolist())}" if m >= 0 else ""))
        for s, t in zip(sample[::2].tolist(), sample[1::2].tolist()):
            by_id = world.find_path(gid, s, t)
            by_point = world.find_path(gid, tuple(everything[s].tolist()),
                                       tuple(everything[t].tolist()))
            if by_id.status is not by_point.status \
                    or not _close_enough(by_id.cost, by_point.cost):
                _fail(ctx, f"find_path({s}, {t}) is {by_id.status.value} at cost "
                           f"{by_id.cost!r}, but between their points it is "
                           f"{by_point.status.value} at cost {by_point.cost!r}")
            if by_id.found and "auto" in factory.geometric_algorithms:
                _check_ends_locate(ctx, lambda p: world.locate(gid, p), by_id, s, t,
                                   f"find_path({s}, {t})")
            elif by_id.found:
                want = np.asarray(graph.points_of(by_id.nodes))
                if factory.drawn_points:
                    follows = _passes_through(np.asarray(by_id.points), want)
                else:
                    follows = np.allclose(by_id.points, want, equal_nan=True)
                if not follows:
                    _fail(ctx, f"find_path({s}, {t}).points are not the points of its "
                               f"nodes (graph.points_of)")
    finally:
        _close(world)


def check_parameters_documented(factory, seed=0):
    """Every keyword the type's builder takes has a meaning in the
    ``Parameters:`` section of its docstring (``navcore.builders``), which
    names no parameter the builder does not take: ``help(world.add_graph)``
    and ``navcore types`` show them."""
    ctx = _Context(factory, seed, "parameters_documented")
    world = factory.make_world()
    try:
        types = world.plugins.graph_types()
        if factory.graph_type not in types:
            _fail(ctx, f"no plugin of the factory's world builds {factory.graph_type!r}")
        builder = types[factory.graph_type][0]
        params = builders.parameters(builder)
        missing = [p.name for p in params if not p.meaning]
        if missing:
            _fail(ctx, f"the builder's docstring gives no meaning for "
                       f"{', '.join(missing)} (a 'Parameters:' section, one "
                       f"'name: meaning' entry each)")
        extra = sorted(set(builders.documented(builder)) - {p.name for p in params})
        if extra:
            _fail(ctx, f"the builder's docstring documents {', '.join(extra)}, which it "
                       f"does not take")
    finally:
        _close(world)


class _ReadOptions(dict):
    """``PathRequest.options`` that notes which keys a planner looked up."""

    def __init__(self, options, read: set):
        super().__init__(options)
        self._read = read

    def get(self, key, default=None):
        self._read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self._read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self._read.add(key)
        return super().__contains__(key)

    def pop(self, key, *default):
        self._read.add(key)
        return super().pop(key, *default)

    def setdefault(self, key, default=None):
        self._read.add(key)
        return super().setdefault(key, default)


class _OptionReader:
    """A plugin that hands every search options that note what was read."""

    def __init__(self):
        self.read: set = set()

    @hookimpl(wrapper=True)
    def navcore_find_path(self, request):
        request.options = _ReadOptions(request.options, self.read)
        return (yield)


#: option names the kit passes to see them refused: typos, and names
#: other libraries use
UNREAD_OPTIONS = ("no_such_option", "heuristc", "heuristic", "weight", "diagonal",
                  "smooth")


def check_options_are_read_or_refused(factory, seed=0, *, pairs=4):
    """``find_path`` takes only the keyword options that the plugins declare
    for the graph (``navcore_query_options``), each declared one is read by
    some algorithm the graph lists, and a value outside a declared
    option's allowed values is refused: an option nobody reads (a typo,
    ``heuristic=`` on a graph whose search has none) is a ``QueryError``
    listing the graph's options, never ignored."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "options_are_read_or_refused")
    world = factory.make_world(frame_budget_ms=NO_BUDGET_MS)
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        declared = validate.query_options(
            world.plugins.hook.navcore_query_options(world=world, graph=graph))
        s, t = _sample_nodes(graph, rng, 2, blocked=0)
        listed = ", ".join(sorted(map(str, declared))) or "none"
        for name in UNREAD_OPTIONS:
            if name in declared:
                continue
            call = f"find_path({s}, {t}, {name}='zero')"
            try:
                world.find_path(gid, s, t, **{name: "zero"})
            except QueryError as exc:
                if name not in str(exc) or listed not in str(exc):
                    _fail(ctx, f"{call} raised QueryError({str(exc)!r}), which does not "
                               f"name {name!r} and list the graph's options ({listed})")
            except Exception as exc:
                _fail(ctx, f"{call} raised {type(exc).__name__}: {exc}; an option no "
                           f"plugin declares must be a QueryError")
            else:
                _fail(ctx, f"{call} was accepted, but no plugin declares {name!r} for "
                           f"this graph (its options: {listed}): an unread option must be "
                           f"a QueryError")
        reader = _OptionReader()
        world.plugins.register(reader)
        algorithms = ["auto", *sorted(world.algorithms(gid))]
        ends = [(a, b) for a, goals in _pairs(graph, rng, pairs, 2) for b in goals[1:]]
        for name, allowed in sorted(declared.items(), key=lambda kv: str(kv[0])):
            if allowed is not None:
                call = f"find_path({s}, {t}, {name}='no-such-value')"
                try:
                    world.find_path(gid, s, t, **{name: "no-such-value"})
                except QueryError as exc:
                    if not any(str(v) in str(exc) for v in allowed):
                        _fail(ctx, f"{call} raised QueryError({str(exc)!r}), which does "
                                   f"not list the allowed values {allowed!r}")
                except Exception as exc:
                    _fail(ctx, f"{call} raised {type(exc).__name__}: {exc}; a value "
                               f"outside the allowed ones must be a QueryError")
                else:
                    _fail(ctx, f"{call} was accepted; {name!r} allows only {allowed!r}")
            # any value allowed: a probe the reader may refuse once it read it
            value = allowed[0] if allowed else "navcore-kit-probe"
            reader.read.clear()
            for algorithm in algorithms:
                for a, b in ends:
                    try:
                        world.find_path(gid, a, b, algorithm=algorithm, **{name: value})
                    except QueryError:
                        pass          # an algorithm may decline this graph, or the value
            if name not in reader.read:
                _fail(ctx, f"option {name!r} is declared for this graph, but no algorithm "
                           f"({', '.join(algorithms)}) read it: declare options only for "
                           f"the graph types whose searches read them (for_graphs)")
    finally:
        _close(world)


def check_update_vocabulary(factory, seed=0):
    """The shared update vocabulary (``navcore_make_update``): ``nodes=``
    with ``walkable=`` blocks and frees those nodes on every graph type;
    on a graph with positions, ``rect=(x, y, w, h)`` with ``walkable=``
    blocks the place under it (a box round a node's point: that point is
    then no valid start) and frees it again, or, on a road network, is
    refused with an ``UpdateError`` that names ``bbox=``."""
    rng = np.random.default_rng(seed)
    ctx = _Context(factory, seed, "update_vocabulary")
    world = factory.make_world(frame_budget_ms=NO_BUDGET_MS)
    try:
        graph = _build(factory, world, GRAPH_ID, rng, ctx)
        gid = graph.graph_id
        open_ = np.flatnonzero(np.asarray(graph.walkable))
        if open_.size < 2:
            _fail(ctx, "the factory's graph has fewer than two walkable nodes")
        nodes = sorted({int(n) for n in rng.choice(open_, size=min(3, open_.size - 1),
                                                   replace=False)})
        other = int(next(n for n in open_ if int(n) not in nodes))
        for walkable in (False, True):
            params = {"nodes": nodes, "walkable": walkable}
            _update(world, gid, params, ctx, f"the shared update nodes=..., "
                                             f"walkable={walkable}")
            world.tick()
            now = np.asarray(graph.walkable)[nodes]
            if (now != walkable).any():
                _fail(ctx, f"update(nodes={nodes}, walkable={walkable}) left nodes "
                           f"{[n for n, w in zip(nodes, now) if w != walkable]} "
                           f"{'walkable' if walkable else 'blocked'}")
            if not walkable:
                r = world.find_path(gid, other, nodes[0])
                if r.status is not PathStatus.INVALID_GOAL:
                    _fail(ctx, f"after update(nodes={nodes}, walkable=False), "
                               f"find_path({other}, {nodes[0]}) is {r.status.value}, "
                               f"not invalid_goal")
        if not graph.has_positions() or _is_3d(graph):
            return                   # rect= is a box on a 2D map
        _check_rect(world, graph, rng, ctx)
    finally:
        _close(world)


def _check_rect(world, graph, rng, ctx):
    """``rect=`` round the point of a walkable node (its fractions of a
    unit between 0.25 and 0.75, so it lies well inside the unit box)."""
    gid = graph.graph_id
    open_ = np.flatnonzero(np.asarray(graph.walkable))
    full = np.asarray(graph.points_of(open_), dtype=np.float64)
    pts = full[:, :2]
    frac = pts - np.floor(pts)
    inner = np.flatnonzero(((frac >= 0.25) & (frac <= 0.75)).all(axis=1))
    refusals = []
    for i in rng.permutation(inner)[:8]:
        p = tuple(float(c) for c in full[i])         # the node's point, all coordinates
        rect = (int(math.floor(p[0])), int(math.floor(p[1])), 1, 1)
        try:
            world.update(gid, rect=rect, walkable=False)
        except UpdateError as exc:
            if "bbox=" in str(exc):
                return                 # a road network: boxes are bbox=
            refusals.append(f"rect={rect}: {exc}")
            continue
        except Exception as exc:
            _fail(ctx, f"update(rect={rect}, walkable=False) raised {type(exc).__name__}: "
                       f"{exc}; a refused update must be an UpdateError")
        ctx.applied({"rect": rect, "walkable": False})
        world.tick()
        r = world.find_path(gid, p, p)
        if r.status is not PathStatus.INVALID_START:
            _fail(ctx, f"after update(rect={rect}, walkable=False), find_path from the "
                       f"point {p} inside it is {r.status.value}, not invalid_start")
        _update(world, gid, {"rect": rect, "walkable": True}, ctx, "rect=..., walkable=True")
        world.tick()
        node = graph.locate(p)
        if node < 0 or not graph.walkable[node]:
            _fail(ctx, f"after update(rect={rect}, walkable=True) the point {p} is "
                       f"still on no walkable node")
        return
    if refusals:
        _fail(ctx, f"rect= was refused round every node tried, and not for bbox=: "
                   f"{'; '.join(refusals[:3])}")


#: every check, in the order ``check_graph_type`` runs them
CHECKS = [check_paths_match_reference, check_sliced_equals_whole,
          check_reachable_and_areas_match_labelling,
          check_dirty_covers_changes, check_scheduler_replans,
          check_bad_input_changes_nothing, check_workers_agree, check_points_locate_back,
          check_options_are_read_or_refused, check_update_vocabulary,
          check_parameters_documented]


def check_name(check) -> str:
    """``check_paths_match_reference`` -> ``paths_match_reference``."""
    name = getattr(check, "__name__", str(check))
    return name[len("check_"):] if name.startswith("check_") else name


# -- running them -------------------------------------------------------------

def check_graph_type(factory, seeds=range(3), checks=None) -> None:
    """Run every check (or ``checks``) for every seed; raise one
    ``AssertionError`` listing all failures."""
    failures = []
    for check in checks or CHECKS:
        for seed in seeds:
            try:
                check(factory, seed=seed)
            except AssertionError as exc:
                failures.append(f"{check_name(check)} (seed {seed}): {exc}")
    if failures:
        raise AssertionError(f"{factory} fails {len(failures)} conformance check(s):\n"
                             + "\n".join(failures))


def parametrize(factories, *, checks=None, seeds=(0,), xfail=None):
    """``pytest.mark.parametrize`` over ``(factory, check)``: one test per
    factory, check and seed, with ids like ``grid-paths_match_reference``
    (``-seed1`` added when there are several seeds). The test calls
    ``check(factory)``.

    ``xfail`` maps a check name (``"workers_agree"``) or a full id
    (``"hexgrid-workers_agree"``) to the reason it is known to fail; such
    tests are strict ``xfail``, so a fix shows up as a failure to remove
    the mark.
    """
    import pytest          # not at module level: only test code needs it

    xfail = dict(xfail or {})
    params = []
    for factory in factories:
        for check in checks or CHECKS:
            for seed in seeds:
                name = check_name(check)
                test_id = f"{factory}-{name}" + (f"-seed{seed}" if len(seeds) > 1 else "")
                reason = xfail.get(test_id) or xfail.get(f"{factory}-{name}") \
                    or xfail.get(name)
                marks = [pytest.mark.xfail(reason=reason, raises=AssertionError,
                                           strict=True)] if reason else []
                bound = functools.partial(check, seed=seed)
                bound.__name__ = check.__name__
                params.append(pytest.param(factory, bound, id=test_id, marks=marks))
    return pytest.mark.parametrize(("factory", "check"), params)
