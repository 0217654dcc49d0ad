"""``World``: the graphs of a game, the plugins that serve them, the frame.

Queries are synchronous and dispatch through hooks; updates are queued by
``World.update`` and applied together by the next ``World.tick`` so no
query ever sees half a batch.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import math
import threading
import time
from collections import defaultdict

import numpy as np

from . import builders, limits, progress, validate
from . import progress as _progress     # where a parameter named progress hides it
from .errors import (CapacityError, FrameError, GraphError, NavError, NodeError, PluginError,
                     QueryError,
                     UnknownGraphError,
                     UnknownGraphTypeError, UpdateError)
from .graph import NavGraph
from .plugins import PluginRegistry
from .types import FrameStats, PathRequest, PathResult, PathStatus

_FIND_PATH_ARGS = ("world", "graph", "request")
# the frame loop's hooks, called through plain functions (``PluginRegistry.
# first_result`` / ``all_results``: no per-call argument dicts and lists)
_MAKE_UPDATE_ARGS = ("world", "graph", "params")
_APPLY_ARGS = ("world", "graph", "batch")
_FRAME_START_ARGS = ("world", "frame")
_UPDATED_ARGS = ("world", "graph_id", "graph", "dirty")
_FRAME_WORK_ARGS = ("world", "deadline", "stats", "budget_nodes")
_FRAME_END_ARGS = ("world", "frame", "stats")
_FRAME_HOOKS = (("navcore_make_update", _MAKE_UPDATE_ARGS),
                ("navcore_apply_updates", _APPLY_ARGS),
                ("navcore_frame_start", _FRAME_START_ARGS),
                ("navcore_graph_updated", _UPDATED_ARGS),
                ("navcore_frame_work", _FRAME_WORK_ARGS),
                ("navcore_frame_end", _FRAME_END_ARGS))
_FIRST_RESULT = ("navcore_make_update", "navcore_apply_updates")
#: the frame hooks called per graph: their callers are made per graph class
#: (``PluginRegistry.first_result(..., graph_type)``), without the hooks of
#: plugins that serve other classes only (``navcore.for_graphs``)
_PER_GRAPH = ("navcore_make_update", "navcore_apply_updates", "navcore_graph_updated")
_INVALID_START = PathResult.failed(PathStatus.INVALID_START)
_INVALID_GOAL = PathResult.failed(PathStatus.INVALID_GOAL)
#: the types of the numbers ``prepare_paths`` hands to ``locate_many`` in bulk
_PLAIN_NUMBERS = {float, int, np.float64, np.float32, np.int64, np.int32}
#: a deterministic world's node budget per frame when none is given: about a
#: millisecond or two of grid A* on one core (JPS expands fewer, dearer nodes)
DEFAULT_FRAME_BUDGET_NODES = 20_000


class _HelpedByPlugins:
    """``World.add_graph`` as a descriptor: through a world it is the
    method with a docstring that also lists every graph type's parameters
    (made from the builders' docstrings, once per plugin set), so
    ``help(world.add_graph)`` tells what each ``type=`` takes."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)
        sig = inspect.signature(fn)
        self.signature = sig.replace(parameters=list(sig.parameters.values())[1:])

    def __get__(self, world, owner=None):
        if world is None:
            return self.fn
        fn = self.fn

        def add_graph(graph_id, type, **params):
            return fn(world, graph_id, type, **params)
        add_graph.__qualname__ = fn.__qualname__
        add_graph.__module__ = fn.__module__
        add_graph.__doc__ = world._add_graph_doc()
        add_graph.__signature__ = self.signature
        return add_graph


class World:
    """Owns the plugin manager, the graphs by id, queued updates and frames.

    >>> import navcore
    >>> world = navcore.World()
    >>> _ = world.add_graph("ring", type="csr", src=[0, 1, 2], dst=[1, 2, 0],
    ...                     cost=[1.0, 1.0, 1.0], directed=False)
    >>> r = world.find_path("ring", 0, 2)
    >>> r.status.value, r.nodes.tolist(), r.cost
    ('found', [0, 2], 1.0)

    Kernels are ready before the first frame: ``add_graph`` loads (or, on
    a machine's first run, compiles) every kernel the plugins will run on
    the new graph before it returns (``warm_up=True``, the default). With
    ``warm_up="background"`` it returns as soon as the graph is built and
    a background thread loads the kernels while the game shows its
    loading screen; ``ready(timeout)`` says whether they are loaded, and
    anything that touches the graph through the world (queries, updates,
    ``tick``) waits for them first, so no frame pays for a kernel load.
    ``warm_up=False`` loads kernels on first use.

    ``on_progress``: None or ``callback(done, total, name)``, told how a
    warm-up goes for a loading screen: after each plugin's warm-up of a
    graph (``done`` of ``total`` steps, ``name`` the step, e.g.
    ``"roads: graph 'r'"``) and, while one compiles kernels (a machine's
    first run), with each kernel's name as numba starts compiling it
    (``done`` unchanged). Called on the thread that warms up (the
    background thread with ``warm_up="background"``); it ends at
    ``done == total``.
    """

    def __init__(self, *, plugins=(), autoload=None, frame_budget_ms: float = 2.0,
                 workers: int = 0, seed: int | None = None, deterministic: bool = False,
                 frame_budget_nodes: int | None = None, warm_up=True, on_progress=None):
        # every setting checked before anything is made (threads, plugins)
        if not (type(warm_up) is bool or (type(warm_up) is str and warm_up == "background")):
            raise FrameError(f"World: warm_up must be True, False or 'background', "
                             f"got {warm_up!r}")
        frame_budget_ms = _frame_number(frame_budget_ms, "frame_budget_ms", "World: ")
        workers = _workers(workers)
        if on_progress is not None and not callable(on_progress):
            raise FrameError(f"World: on_progress must be None or a callable(done, total, "
                             f"name), got {on_progress!r}")
        if seed is not None and not validate.is_int(seed):
            raise FrameError(f"World: seed must be an integer or None, got {seed!r}")
        if isinstance(plugins, (str, bytes)) or not isinstance(plugins, (list, tuple)):
            raise PluginError(f"World: plugins must be a list of plugin modules or "
                              f"objects, got {plugins!r}")
        self.warm_up_mode = warm_up
        #: ``callback(done, total, name)`` told how warm-ups go (or None)
        self.on_progress = on_progress
        #: seconds spent loading kernels in ``add_graph`` and ``warm_up`` so far
        self.warm_up_seconds = 0.0
        self._warming: dict = {}             # graph_id -> _BackgroundWarmUp in flight
        self._warm_thread = threading.local()   # marks the warm-up thread's own calls
        #: serve requests by a node budget only, never by the clock (replays)
        self.deterministic = validate.boolean(deterministic, "deterministic", FrameError)
        #: nodes the searches of one frame may expand (``None``: no node
        #: budget; a deterministic world then uses ``DEFAULT_FRAME_BUDGET_NODES``)
        self.frame_budget_nodes = None if frame_budget_nodes is None else \
            _budget_nodes(frame_budget_nodes, "frame_budget_nodes")
        if self.deterministic and self.frame_budget_nodes is None:
            self.frame_budget_nodes = DEFAULT_FRAME_BUDGET_NODES
        self.plugins = PluginRegistry(autoload=autoload)
        for p in plugins:
            self.plugins.register(p)
        self.graphs: dict = {}
        self.frame = 0
        self.frame_budget_ms = frame_budget_ms
        self.workers = workers
        self.seed = seed
        self._pending: dict = defaultdict(list)   # graph_id -> [Update]
        # update() from another thread appends while tick() swaps the queue
        # out: without it an update appended to a batch tick() had already
        # applied was lost without a word
        self._pending_lock = threading.Lock()
        self._seq = 0
        self._algo_cache: dict = {}   # (graph, plugins.version) -> names
        self._post_cache = (-1, False)  # (plugins.version, any postprocessor)
        self._type_doc = (-1, "")       # (plugins.version, add_graph's help)
        self.last_stats: FrameStats | None = None
        #: set by the scheduler plugin (``navcore_world_created``)
        self.scheduler = None
        #: ``close()`` was called: queries only, no more frames or changes
        self.closed = False
        self.plugins.hook.navcore_world_created(world=self)

    def close(self) -> None:
        """Stop the world's threads (the scheduler's workers, its jobs) once
        background warm-ups have finished, and finish every waiting path
        request ``cancelled``. Calling it again does nothing.

        A closed world still answers queries (``find_path``, ``reachable``,
        matrices) on the calling thread; ``add_graph``, ``update``,
        ``request_path`` and ``tick`` raise ``FrameError``. ``with
        navcore.World() as world:`` closes the world at the block's end.

        >>> import navcore
        >>> with navcore.World(workers=1) as world:
        ...     _ = world.add_graph("g", type="grid", rows=["...", "..."])
        ...     handle = world.request_path("g", (0, 0), (2, 1))
        >>> handle.result().status, world.find_path("g", (0, 0), (2, 0)).cost
        (<PathStatus.CANCELLED: 'cancelled'>, 2.0)
        """
        if self.closed:
            return
        for job in list(self._warming.values()):
            job.done.wait()           # a kernel compile cannot be interrupted
        self.closed = True
        self.plugins.hook.navcore_world_closed(world=self)

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise FrameError(f"{what}: the world is closed (World.close()); it answers "
                             f"queries but takes no more graphs, updates, requests or "
                             f"frames")

    # -- graphs -------------------------------------------------------------
    def graph_types(self) -> dict:
        """``{type_name: plugin_name}`` for every graph type on offer."""
        return {t: owner for t, (_, owner) in self.plugins.graph_types().items()}

    def graph_type_help(self, type: str | None = None) -> str:
        """What graph ``type`` (every type on offer by default) is made
        from: each parameter with its default and meaning, as
        ``help(world.add_graph)`` and ``navcore types`` show them.

        >>> import navcore
        >>> print(navcore.World().graph_type_help("csr").splitlines()[0])
        csr (plugin csr)
        """
        types = self.plugins.graph_types()
        if type is None:
            return "\n\n".join(builders.describe(t, b, owner)
                               for t, (b, owner) in sorted(types.items()))
        if not isinstance(type, str) or type not in types:
            raise UnknownGraphTypeError(f"unknown graph type {type!r}; known types: "
                                        f"{', '.join(sorted(types)) or 'none'}")
        builder, owner = types[type]
        return builders.describe(type, builder, owner)

    def _add_graph_doc(self) -> str:
        version, text = self._type_doc
        if version != self.plugins.version:
            text = (inspect.getdoc(World.add_graph) + "\n\nThe graph types of this world "
                    "and their parameters:\n\n" + self.graph_type_help())
            self._type_doc = (self.plugins.version, text)
        return text

    @_HelpedByPlugins
    def add_graph(self, graph_id, type: str, **params) -> NavGraph:
        """Build a graph of ``type`` from ``params`` and add it as ``graph_id``.

        ``help(world.add_graph)`` lists the parameters of every graph type
        the world's plugins offer; ``world.graph_type_help(type)`` one.
        An unknown type or parameter is a ``NavError`` naming the ones
        there are; on any error the world is left as it was.
        """
        self._check_open("add_graph")
        self._check_new_id(graph_id)
        types = self.plugins.graph_types()
        if not isinstance(type, str) or type not in types:
            offered = ", ".join(f"{t} ({owner})" for t, (_, owner) in sorted(types.items()))
            left_out = "".join(f"; plugin {p.name!r} was not loaded: {p.reason}"
                               for p in self.plugins.skipped)
            raise UnknownGraphTypeError(
                f"unknown graph type {type!r}; known types: {offered or 'none'}{left_out}")
        builder, owner = types[type]
        _check_params(builder, type, owner, params)
        with progress.stage(f"building {type} graph {graph_id!r}"):
            graph = builder(self, graph_id, **params)
        if not isinstance(graph, NavGraph):
            raise GraphError(f"the builder of graph type {type!r} returned "
                             f"{graph!r}, not a NavGraph")
        graph.kind = type
        graph.graph_id = graph_id
        return self._join(graph)

    def adopt_graph(self, graph: NavGraph) -> NavGraph:
        """Add a graph that is already built (by ``add_graph`` in another
        world, say, and unpickled here: a Dask worker receiving a
        snapshot) under its own ``graph.graph_id``, with the views it
        holds, without building it again.

        The graph joins the world as ``add_graph`` would have left it: the
        ``navcore_graph_built`` observers run (they keep views that are
        still current, e.g. the areas) and its kernels are loaded as this
        world's ``warm_up`` setting says. It must not stay in a world that
        updates it: the two worlds would not hear of each other's updates.

        ``GraphError`` when ``graph`` is not a ``NavGraph``, has no id or an
        id already in use here; ``UnknownGraphTypeError`` when no plugin
        of this world builds its type (nothing would serve it as it
        should). On any error the world is left as it was.
        """
        if not isinstance(graph, NavGraph):
            raise GraphError(f"adopt_graph takes a NavGraph (add_graph builds one), "
                             f"got {graph!r}")
        graph_id = graph.graph_id
        if graph_id is None:
            raise GraphError("adopt_graph: the graph has no graph_id (a graph built "
                             "outside a world); add it with add_graph")
        self._check_open("adopt_graph")
        self._check_new_id(graph_id)
        types = self.plugins.graph_types()
        if not isinstance(graph.kind, str) or graph.kind not in types:
            raise UnknownGraphTypeError(
                f"adopt_graph: no plugin of this world builds graphs of type {graph.kind!r} "
                f"(graph {graph_id!r}); known types: {', '.join(sorted(types)) or 'none'}")
        return self._join(graph)

    def _check_new_id(self, graph_id) -> None:
        try:
            hash(graph_id)
        except TypeError:
            raise GraphError(f"graph id must be hashable, got {graph_id!r}") from None
        if graph_id in self.graphs:
            raise GraphError(f"graph id {graph_id!r} is already in use; "
                             f"remove_graph it first")

    def _join(self, graph: NavGraph) -> NavGraph:
        """Put a built graph (with its ``graph_id`` and ``kind``) in the
        world: the ``navcore_graph_built`` observers and the warm-up run,
        and if either fails the world is left without it."""
        graph_id = graph.graph_id
        graph.workers = self.workers         # its kernels' threads follow the world's
        self.graphs[graph_id] = graph
        try:
            with progress.stage(f"building the views of graph {graph_id!r} (areas, ...)"):
                self.plugins.hook.navcore_graph_built(world=self, graph_id=graph_id,
                                                      graph=graph)
            if self.warm_up_mode is True:
                self._warm_graph(graph)
        except BaseException:
            del self.graphs[graph_id]
            raise
        if self.warm_up_mode == "background":
            self._warming[graph_id] = _BackgroundWarmUp(self, graph, self._warming.values())
        return graph

    def ready(self, timeout: float | None = None) -> bool:
        """Whether the kernels of every graph are loaded; waits up to
        ``timeout`` seconds (forever with ``None``) for background
        warm-ups (``World(warm_up="background")``) to finish. A game calls
        it each frame of its loading screen with ``timeout=0``, or once
        with no timeout. Raises the error of a warm-up that failed.

        >>> import navcore
        >>> w = navcore.World(warm_up="background")
        >>> _ = w.add_graph("g", type="grid", rows=["...", "..."])
        >>> w.ready()            # waits until the kernels are loaded
        True
        """
        if timeout is not None and not (isinstance(timeout, (int, float))
                                        and not isinstance(timeout, bool)
                                        and timeout == timeout):
            raise FrameError(f"ready: timeout must be a number of seconds or None, "
                             f"got {timeout!r}")
        timeout = None if timeout is None or timeout > 1e9 else timeout   # ~30 years: forever
        deadline = None if timeout is None else time.perf_counter() + max(0.0, timeout)
        for graph_id, job in list(self._warming.items()):
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            if not job.done.wait(left):
                return False
            self._warming.pop(graph_id, None)
            job.raise_error()
        return True

    def remove_graph(self, graph_id) -> None:
        graph = self.graph(graph_id)
        del self.graphs[graph_id]
        self._pending.pop(graph_id, None)
        self._algo_cache.clear()        # ids of removed graphs may be reused
        self.plugins.hook.navcore_graph_removed(world=self, graph_id=graph_id, graph=graph)

    def graph(self, graph_id) -> NavGraph:
        if self._warming and graph_id in self._warming and \
                not getattr(self._warm_thread, "active", False):
            self.ready()     # its kernels first: a query must not race the warm-up
        try:
            return self.graphs[graph_id]
        except (KeyError, TypeError):
            known = ", ".join(repr(g) for g in self.graphs) or "none"
            raise UnknownGraphError(f"no graph {graph_id!r} in this world; "
                                    f"graphs: {known}") from None

    # -- queries ------------------------------------------------------------
    def algorithms(self, graph_id) -> list:
        """The ``algorithm=`` names that some plugin answers for this graph."""
        graph = self.graph(graph_id)
        return sorted(self._algorithms(graph))

    def find_path(self, graph_id, start, goal, algorithm: str = "auto",
                  **options) -> PathResult:
        """Shortest path from ``start`` to ``goal`` (node ids or points).

        Returns a ``PathResult``; a start or goal outside the graph or not
        walkable gives ``invalid_start`` / ``invalid_goal``, no path gives
        ``unreachable``. Malformed input raises a ``NavError``.
        """
        graph, request = self.prepare_path(graph_id, start, goal, algorithm, **options)
        if type(request) is PathResult:
            return request
        return self._solve(graph, request)

    def prepare_path(self, graph_id, start, goal, algorithm: str = "auto", **options):
        """``(graph, request)``: ``find_path``'s checks without the search.
        ``request`` is the resolved ``PathRequest``, or already the
        ``PathResult`` when the start or goal is not walkable (``solve``
        then answers the request; the scheduler batches requests this way).
        Malformed input raises a ``NavError``."""
        graph = self.graph(graph_id)
        self._check_query(graph, graph_id, algorithm, options)
        s = graph.node_of(start)
        t = graph.node_of(goal)
        if s < 0 or not graph.walkable[s]:
            return graph, _INVALID_START
        if t < 0 or not graph.walkable[t]:
            return graph, _INVALID_GOAL
        return graph, PathRequest(graph_id, start, goal, algorithm, s, t, options)

    def prepare_paths(self, graph_id, starts, goals, algorithm: str = "auto"):
        """``(graph, requests)``: ``prepare_path`` for many requests on one
        graph, ``requests[i]`` what ``prepare_path(graph_id, starts[i],
        goals[i], algorithm)`` would return. On a graph that locates whole
        arrays (``vector_locate``), ends given as ``(x, y)`` tuples or lists
        of Python or numpy numbers are located in one ``locate_many`` call
        (starts and goals together) and walkability is checked on arrays
        (the scheduler resolves a frame's requests this way); other ends
        one at a time through ``node_of``. Malformed input (an unknown
        graph or algorithm, an end the graph cannot place) raises a
        ``NavError`` and changes nothing."""
        starts, goals = list(starts), list(goals)
        graph, s, t, bad = self._resolve_many(graph_id, starts, goals, algorithm)
        if bad is None:
            bad = np.zeros(len(starts), dtype=np.int8)
        out = [(_INVALID_START, _INVALID_GOAL)[b - 1] if b else
               PathRequest(graph_id, a, g, algorithm, i, j, {})
               for a, g, i, j, b in zip(starts, goals, s.tolist(), t.tolist(),
                                        bad.tolist())]
        return graph, out

    def _resolve_many(self, graph_id, starts, goals, algorithm):
        """``prepare_paths`` in arrays, for the scheduler (no object per
        request): ``(graph, s, t, bad)`` with the int32 start and goal
        nodes and per request 0 (a search is due), 1 (invalid start) or
        2 (invalid goal), ``bad`` ``None`` when all are 0 (few numpy
        calls: a frame's round is ~40 requests, where each call costs as
        much as several requests' Python). ``starts``/``goals``: lists.
        Same checks and errors as ``prepare_paths``."""
        graph = self.graph(graph_id)
        self._check_query(graph, graph_id, algorithm, {})
        if len(starts) != len(goals):
            raise QueryError(f"prepare_paths needs as many starts as goals, got "
                             f"{len(starts)} and {len(goals)}")
        k = len(starts)
        nodes = self._ends_of(graph, starts + goals).astype(np.int32)   # both in one
        s, t = nodes[:k], nodes[k:]
        off = (nodes < 0) | ~graph.walkable[np.maximum(nodes, 0)]
        if not off.any():
            return graph, s, t, None
        bad = np.where(off[:k], 1, np.where(off[k:], 2, 0)).astype(np.int8)
        return graph, s, t, bad

    @staticmethod
    def _ends_of(graph, ends) -> np.ndarray:
        """Integer nodes of ``ends`` as ``node_of`` resolves them."""
        if graph.vector_locate and ends:
            # ends that are all pairs of plain numbers (no bools, which
            # locate refuses and numpy reads as 0/1) are points: in bulk
            try:
                plain = set(map(type, itertools.chain.from_iterable(ends))) <= _PLAIN_NUMBERS
                pts = np.asarray(ends, dtype=np.float64) if plain else None
            except (TypeError, ValueError, OverflowError):
                pts = None
            if pts is not None and pts.shape == (len(ends), 2):
                return graph.locate_many(pts)
        return np.fromiter(map(graph.node_of, ends), dtype=np.int64, count=len(ends))

    def _check_query(self, graph, graph_id, algorithm, options) -> None:
        """``algorithm`` and ``options`` are known for ``graph``."""
        if type(algorithm) is not str or (algorithm != "auto"
                                          and algorithm not in self._algorithms(graph)):
            validate.choice(algorithm, ["auto", *sorted(self._algorithms(graph))],
                            "algorithm", QueryError,
                            where=f" for {graph.kind} graph {graph_id!r}")
        if options:
            validate.query_option_values(options, self._query_options(graph),
                                         f"{graph.kind} graph {graph_id!r}")

    def solve(self, graph: NavGraph, request: PathRequest) -> PathResult:
        """Run a request resolved by ``prepare_path`` through the query
        hooks (the scheduler serves requests this way). ``QueryError``
        when ``graph`` is not this world's graph of ``request.graph_id``;
        ends that are not node ids are a ``NodeError``, blocked ones the
        ``invalid_start`` / ``invalid_goal`` result."""
        if type(request) is not PathRequest or request.graph_id not in self.graphs \
                or self.graphs[request.graph_id] is not graph:
            raise QueryError(f"solve takes a graph of this world and a PathRequest for it "
                             f"(World.prepare_path makes both), got {graph!r} and "
                             f"{request!r}")
        n = graph.num_nodes
        s, t = request.start_node, request.goal_node
        if not (type(s) is int and 0 <= s < n):
            s = request.start_node = validate.node_id(s, n, "start")
        if not (type(t) is int and 0 <= t < n):
            t = request.goal_node = validate.node_id(t, n, "goal")
        walkable = graph.walkable
        if not walkable[s]:
            return _INVALID_START
        if not walkable[t]:
            return _INVALID_GOAL
        return self._solve(graph, request)

    def _solve(self, graph: NavGraph, request: PathRequest) -> PathResult:
        result = self.plugins.first_result("navcore_find_path", _FIND_PATH_ARGS)(
            self, graph, request)
        if result is None:
            raise QueryError(f"no plugin answered find_path on {graph.kind} graph "
                             f"{request.graph_id!r} with algorithm "
                             f"{request.algorithm!r}")
        if result.status is PathStatus.FOUND and self._has_postprocess():
            better = self.plugins.hook.navcore_postprocess_path(
                world=self, graph=graph, request=request, result=result)
            if better is not None:
                result = better
        return result

    def warm_up(self, graph_id=None, *, progress=None) -> float:
        """Load the kernels the plugins will run on ``graph_id`` (every
        graph by default) now, so no frame pays for it later. ``add_graph``
        does this already (unless ``World(warm_up=False)``); call it again
        after registering a plugin or building a view (``contract``,
        ``simplify``). ``progress``: a ``callback(done, total, name)`` for
        this call (see ``on_progress``). Returns the seconds it took."""
        if progress is not None and not callable(progress):
            raise FrameError(f"warm_up: progress must be None or a callable(done, total, "
                             f"name), got {progress!r}")
        self.ready()
        t0 = time.perf_counter()
        graphs = self.graphs if graph_id is None else {graph_id: self.graph(graph_id)}
        graphs = list(graphs.values())
        steps = [self._warm_steps(g) for g in graphs]
        with _progress.Steps(progress or self.on_progress, sum(map(len, steps))) as report:
            for graph, todo in zip(graphs, steps):
                self._warm_graph(graph, todo, report)
        return time.perf_counter() - t0

    def _warm_steps(self, graph) -> list:
        """``[(plugin_name, call)]``: the plugins' warm-ups of ``graph``."""
        return self.plugins.each_impl("navcore_warm_up", ("world", "graph"), type(graph))

    def _warm_graph(self, graph, steps=None, report=None) -> None:
        if report is None:
            steps = self._warm_steps(graph)
            with _progress.Steps(self.on_progress, len(steps)) as report:
                return self._warm_graph(graph, steps, report)
        t0 = time.perf_counter()
        with progress.stage(f"loading the kernels of graph {graph.graph_id!r}"):
            for plugin_name, call in steps:
                call(self, graph)
                report.step(f"{plugin_name or 'plugins'}: graph {graph.graph_id!r}")
            # the frame loop's hook callers (each made once, by eval, ~0.1 ms)
            for name, args in _FRAME_HOOKS:
                make = self.plugins.first_result if name in _FIRST_RESULT else \
                    self.plugins.all_results
                make(name, args, type(graph) if name in _PER_GRAPH else None)
        self.warm_up_seconds += time.perf_counter() - t0

    def path_costs(self, graph_id, paths) -> np.ndarray:
        """What each path in ``paths`` (sequences of node ids, e.g. earlier
        ``PathResult.nodes``) costs to walk on the graph as it is now:
        float64, ``inf`` where a node is blocked or a move is gone.

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="grid", rows=["...", "..."])
        >>> p = w.find_path("g", (0, 0), (2, 0)).nodes
        >>> w.update("g", cells=[(1, 0)], walkable=False); _ = w.tick()
        >>> w.path_costs("g", [p, [0, 3]]).tolist()
        [inf, 1.0]
        """
        graph = self.graph(graph_id)
        if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__"):
            raise NodeError(f"paths must be a list of node-id sequences, got {paths!r}")
        arrays = [self._nodes(graph, p, f"paths[{i}]") for i, p in enumerate(paths)]
        starts = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum([a.size for a in arrays], out=starts[1:])
        nodes = np.concatenate(arrays) if arrays else np.empty(0, np.int32)
        return self._path_costs(graph, nodes.astype(np.int32), starts)

    def _path_costs(self, graph, nodes, starts) -> np.ndarray:
        out = self.plugins.hook.navcore_path_costs(world=self, graph=graph, nodes=nodes,
                                                   starts=starts)
        if out is None:
            raise QueryError(f"no plugin answered path_costs on {graph.kind} graph "
                             f"{graph.graph_id!r}")
        return out

    def reachable(self, graph_id, a, b) -> bool:
        """Whether ``b`` can be reached from ``a`` (False if either is blocked)."""
        graph = self.graph(graph_id)
        s, t = graph.node_of(a), graph.node_of(b)
        if s < 0 or t < 0 or not graph.walkable[s] or not graph.walkable[t]:
            return False
        answer = self.plugins.hook.navcore_reachable(world=self, graph=graph, a=s, b=t)
        if answer is None:
            raise QueryError(f"no plugin answered reachable on graph {graph_id!r}")
        return bool(answer)

    def reachable_many(self, graph_id, a, b) -> np.ndarray:
        """Vectorised ``reachable``: a bool array, one entry per pair
        ``(a[i], b[i])`` (node id arrays, or sequences of points)."""
        graph = self.graph(graph_id)
        src = self._nodes(graph, a, "a", allow_outside=True)
        dst = self._nodes(graph, b, "b", allow_outside=True)
        if src.shape != dst.shape:
            raise QueryError(f"reachable_many needs as many a as b, got "
                             f"{src.size} and {dst.size}")
        out = self.plugins.hook.navcore_reachable_many(world=self, graph=graph, a=src, b=dst)
        if out is None:
            out = np.array([self.reachable(graph_id, int(s), int(t)) if s >= 0 and t >= 0
                            else False for s, t in zip(src, dst)], dtype=bool)
        return out

    def area(self, graph_id, node_or_point) -> int:
        """Area (connected component) id of a node or point; ``-1`` when it
        is blocked or outside the graph."""
        graph = self.graph(graph_id)
        s = graph.node_of(node_or_point)
        if s < 0:
            return -1
        return int(self._areas(graph, np.array([s], dtype=np.int32))[0])

    def areas(self, graph_id) -> np.ndarray:
        """int32 area id of every node (``-1`` for blocked nodes)."""
        graph = self.graph(graph_id)
        return self._areas(graph, None)

    def nearest_reachable(self, graph_id, point, from_) -> int:
        """The walkable node closest to ``point`` that ``from_`` (a node or
        point) can reach; ``-1`` when ``from_`` is blocked or outside."""
        graph = self.graph(graph_id)
        s = graph.node_of(from_)
        if s < 0 or not graph.walkable[s]:
            return -1
        node = self.plugins.hook.navcore_nearest_reachable(world=self, graph=graph,
                                                           point=point, start=s)
        if node is None:
            raise QueryError(f"no plugin answered nearest_reachable on graph "
                             f"{graph_id!r} (is the hierarchy plugin loaded?)")
        return int(node)

    def distance_matrix(self, graph_id, sources, targets) -> np.ndarray:
        """Float64 matrix of shortest costs, ``inf`` where unreachable
        (node ids, or points where the graph has positions). On a navmesh
        the costs are exact path lengths between the points (a polygon id
        stands for its centroid), as ``find_path`` measures them."""
        graph = self.graph(graph_id)
        # the answer's float64s (a plugin's scratch besides is its own
        # matter), weighed before the ends are converted: a view of a huge
        # array costs nothing until then
        m, n = limits.count(sources), limits.count(targets)
        limits.check_memory(f"a {m} x {n} distance matrix", 8 * m * n)
        src, src_pts = self._nodes(graph, sources, "sources", with_points=True)
        dst, dst_pts = self._nodes(graph, targets, "targets", with_points=True)
        out = self.plugins.hook.navcore_distance_matrix(
            world=self, graph=graph, sources=src, targets=dst, source_points=src_pts,
            target_points=dst_pts)
        if out is None:
            raise QueryError(f"no plugin answered distance_matrix on graph {graph_id!r}")
        return out

    def distance_pairs(self, graph_id, sources, targets) -> np.ndarray:
        """Float64 ``out[i]``: the shortest cost from ``sources[i]`` to
        ``targets[i]`` (``inf`` where unreachable), for arrays of pairs in
        one call (node ids, or points where the graph has positions; on a
        navmesh exact path lengths, as ``distance_matrix``).

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 2.0])
        >>> w.distance_pairs("g", [0, 0, 2], [1, 2, 0]).tolist()
        [1.0, 3.0, inf]
        """
        graph = self.graph(graph_id)
        limits.check_pairs("distance_pairs", max(limits.count(sources), limits.count(targets)))
        src, src_pts = self._nodes(graph, sources, "sources", with_points=True)
        dst, dst_pts = self._nodes(graph, targets, "targets", with_points=True)
        if src.shape != dst.shape:
            raise QueryError(f"distance_pairs needs as many sources as targets, got "
                             f"{src.size} and {dst.size}")
        out = self.plugins.hook.navcore_distance_pairs(
            world=self, graph=graph, sources=src, targets=dst, source_points=src_pts,
            target_points=dst_pts)
        if out is None:
            raise QueryError(f"no plugin answered distance_pairs on graph {graph_id!r}")
        return out

    def locate(self, graph_id, point) -> int:
        """The node at or nearest to ``point`` (``-1`` outside the graph)."""
        return self.graph(graph_id).locate(point)

    # -- updates and frames -------------------------------------------------
    def update(self, graph_id, **params) -> None:
        """Queue a change to a graph; the next ``tick`` applies it.

        What ``params`` may say depends on the backend (for grids:
        ``rect=``/``cells=``/``mask=`` with ``walkable=`` or ``cost=``).
        Malformed updates raise ``UpdateError`` now and queue nothing. The
        update is a value: its arrays and lists are copied, so changing
        them afterwards changes nothing. If a graph's batch still fails
        when ``tick`` applies it (a backend's error), the other graphs'
        batches are applied and observed first, then ``tick`` raises a
        ``NavError`` saying the failed graph's updates were dropped.
        """
        if self.closed:
            self._check_open("update")
        graph = self.graph(graph_id)
        # an update is a value: what was checked now is what tick applies,
        # whatever the caller does with its arrays and lists meanwhile
        params = {k: _own_copy(v) for k, v in params.items()}
        upd = self.plugins.first_result("navcore_make_update", _MAKE_UPDATE_ARGS,
                                        type(graph))(self, graph, params)
        if upd is None:
            raise UpdateError(f"{graph.kind} graph {graph_id!r} does not accept "
                              f"updates {sorted(params)}")
        with self._pending_lock:
            self._seq += 1
            self._pending[graph_id].append(
                type(upd)(upd.graph_id, upd.kind, upd.params, self._seq))

    def request_path(self, graph_id, start, goal, *, algorithm: str = "auto",
                     callback=None, repath: bool = False, replan_from=None):
        """Queue a path request; the next ticks serve it within their budget.

        Returns a handle (``done``, ``result()``, ``cancel()``, awaitable).
        ``callback(handle)`` runs on the thread that calls ``tick`` when a
        result is ready. With ``repath=True`` the path is planned again
        whenever an update breaks it or makes it dearer, and a request
        without a path is tried again when the graph's areas change (a door
        reopening). A re-plan starts where the first search did, or at
        ``replan_from(handle)`` when given (say, where the unit stands
        now); it is called while ``tick`` serves the request, on the
        thread that calls ``tick``, in request order, just before the
        search (a deterministic world may call it again in a later frame
        when the node budget ran out before the request's turn). When
        ``replan_from`` has a ``many`` attribute, the handles of one round
        that share it are asked together, ``many(handles)`` returning their
        start points in order (see ``navcore_scheduler.requests``).
        """
        if self.closed:
            self._check_open("request_path")
        if self.scheduler is None:
            raise QueryError("request_path needs the scheduler plugin "
                             "(navcore_scheduler), which is not loaded")
        return self.scheduler.request_path(graph_id, start, goal, algorithm=algorithm,
                                           callback=callback, repath=repath,
                                           replan_from=replan_from)

    def queued_updates(self, graph_id) -> tuple:
        """The updates queued for ``graph_id`` since the last tick, oldest
        first (``navcore.Update`` records, as ``navcore_make_update`` made
        them). For backends whose validation depends on what is already
        queued: a navmesh refuses to remove an obstacle that neither exists
        nor is queued to be added."""
        self.graph(graph_id)
        return tuple(self._pending.get(graph_id, ()))

    def pending_updates(self, graph_id=None) -> int:
        """Updates queued for ``graph_id`` (all graphs by default)."""
        if graph_id is None:
            return sum(len(v) for v in list(self._pending.values()))
        self.graph(graph_id)                  # an unknown id is a mistake, not 0
        return len(self._pending.get(graph_id, ()))

    def tick(self, dt: float = 0.0, budget_ms: float | None = None,
             budget_nodes: int | None = None) -> FrameStats:
        """Run one frame: apply queued updates as one batch per graph, let
        observers react, serve path requests until the budget is spent,
        and report what was done.

        The budget is wall-clock time (``budget_ms``, default
        ``frame_budget_ms``) and, when one is set, work: ``budget_nodes``
        (default ``frame_budget_nodes``) nodes expanded by the frame's
        searches. A deterministic world (``World(deterministic=True)``)
        counts nodes only, so a frame serves the same requests on any
        machine and with any number of workers (replays, lockstep)."""
        if self.closed:
            self._check_open("tick")
        if not (type(dt) is float and 0.0 <= dt < math.inf):   # (the usual dt: no call)
            dt = _frame_number(dt, "dt")                 # before anything changes
        budget = self.frame_budget_ms if budget_ms is None else \
            _frame_number(budget_ms, "budget_ms")
        nodes = self.frame_budget_nodes if budget_nodes is None else \
            _budget_nodes(budget_nodes, "budget_nodes", "tick: ")
        if self._warming:
            self.ready()      # a game that skipped its loading screen waits here once
        t0 = time.perf_counter()
        self.frame += 1
        plugins = self.plugins
        stats = FrameStats(self.frame, dt)
        plugins.all_results("navcore_frame_start", _FRAME_START_ARGS)(self, self.frame)
        applied, failed = [], []
        if self._pending:
            with self._pending_lock:
                pending, self._pending = self._pending, defaultdict(list)
            work = [(gid, self.graphs[gid], batch) for gid, batch in pending.items()
                    if batch and gid in self.graphs]
            for (graph_id, graph, batch), dirty in zip(work, self._apply_all(work)):
                if dirty is None:
                    dirty = UpdateError(f"no plugin applied the updates of {graph.kind} "
                                        f"graph {graph_id!r}")
                if isinstance(dirty, Exception):
                    failed.append((graph_id, len(batch), dirty))
                    continue
                stats.updates_applied += len(batch)
                stats.dirty_nodes += len(dirty)
                applied.append((graph_id, graph, dirty))
        t1 = time.perf_counter()
        for graph_id, graph, dirty in applied:
            plugins.all_results("navcore_graph_updated", _UPDATED_ARGS, type(graph))(
                self, graph_id, graph, dirty)
        if failed:
            _raise_failed_batch(failed, len(applied))
        t2 = time.perf_counter()
        deadline = math.inf if self.deterministic else t0 + budget / 1e3
        plugins.all_results("navcore_frame_work", _FRAME_WORK_ARGS)(self, deadline, stats,
                                                                    nodes)
        t3 = time.perf_counter()
        stats.time_updates_ms = (t1 - t0) * 1e3
        stats.time_observers_ms = (t2 - t1) * 1e3
        stats.time_requests_ms = (t3 - t2) * 1e3
        stats.time_total_ms = (time.perf_counter() - t0) * 1e3
        self.last_stats = stats       # before frame_end: its hooks may raise (callbacks)
        plugins.all_results("navcore_frame_end", _FRAME_END_ARGS)(self, self.frame, stats)
        return stats

    # -- internals ------------------------------------------------------------
    def _apply_all(self, work) -> list:
        """Dirty nodes per ``(graph_id, graph, batch)``. Graphs are
        independent, so with a scheduler that has workers each graph's batch
        is a job of its own; observers still run afterwards, in order, on
        this thread."""
        sched = self.scheduler
        if len(work) < 2 or sched is None or not getattr(sched, "workers", 0):
            return [self._apply(g, b) for _, g, b in work]
        jobs = [sched.schedule(lambda g=g, b=b: self._apply(g, b)) for _, g, b in work]
        return [job.complete() for job in jobs]

    def _apply(self, graph, batch):
        """One graph's batch through ``navcore_apply_updates``."""
        first = self.plugins.first_result("navcore_apply_updates", _APPLY_ARGS, type(graph))
        graph.begin_write()              # builders on other threads re-read after it
        try:
            return first(self, graph, batch)
        except Exception as exc:         # raised by tick once the other graphs' are in
            return exc
        finally:
            graph.end_write()

    def _algorithms(self, graph) -> set:
        key = (id(graph), graph.kind, self.plugins.version)
        names = self._algo_cache.get(key)
        if names is None:
            names = set()
            for lst in self.plugins.hook.navcore_algorithms(world=self, graph=graph):
                names.update(lst or ())
            if len(self._algo_cache) > 256:   # plugins or graphs changed a lot
                self._algo_cache.clear()
            self._algo_cache[key] = names
        return names

    def _query_options(self, graph) -> dict:
        """``{option: allowed values or None}`` the plugins read for ``graph``."""
        key = ("options", id(graph), graph.kind, self.plugins.version)
        names = self._algo_cache.get(key)
        if names is None:
            names = validate.query_options(
                self.plugins.hook.navcore_query_options(world=self, graph=graph))
            self._algo_cache[key] = names
        return names

    def _has_postprocess(self) -> bool:
        version, has = self._post_cache
        if version != self.plugins.version:
            has = bool(self.plugins.hook.navcore_postprocess_path.get_hookimpls())
            self._post_cache = (self.plugins.version, has)
        return has

    def _areas(self, graph, nodes):
        out = self.plugins.hook.navcore_areas(world=self, graph=graph, nodes=nodes)
        if out is None:
            raise QueryError(f"no plugin answered areas on graph {graph.graph_id!r} "
                             f"(is the hierarchy plugin loaded?)")
        return out

    def _nodes(self, graph, items, what, allow_outside=False, with_points=False):
        """Validated int32 node ids from ids or points; a point outside the
        graph is ``-1`` when ``allow_outside``, else a ``NodeError``. With
        ``with_points``: ``(ids, points)``, ``points`` the float64 ``(k, 2)``
        points the caller gave, NaN in the rows given as node ids (or as
        anything but an ``(x, y)`` pair), ``None`` when every entry was an id."""
        points = None
        try:
            arr = np.asarray(items) if not isinstance(items, np.ndarray) else items
        except (TypeError, ValueError):      # ragged: ids mixed with points
            arr = None
        if arr is not None and arr.ndim == 1 and (
                arr.size == 0 or np.issubdtype(arr.dtype, np.integer)) and not (
                arr is not items and any(isinstance(x, (bool, np.bool_)) for x in items)):
            # (numpy reads [3, True] as [3, 1]; a bool is no node id, so a
            # list holding one goes the slow way and node_of rejects it)
            out = validate.node_ids(arr, graph.num_nodes, what)
            return (out, None) if with_points else out
        if graph.vector_locate and arr is not None and arr.ndim == 2 and arr.size \
                and np.issubdtype(arr.dtype, np.number) and arr.dtype != np.bool_:
            points = validate.points(arr, what)
            out = graph.locate_many(points)   # one call, not one per point
        else:
            out = self._locate_each(graph, items, what)
            if with_points:
                points = _given_points(items)
        if not allow_outside and (out < 0).any():
            i = int(np.flatnonzero(out < 0)[0])
            raise NodeError(f"{what}[{i}] = {items[i]!r} lies outside graph "
                            f"{graph.graph_id!r}")
        return (out, points) if with_points else out

    @staticmethod
    def _locate_each(graph, items, what) -> np.ndarray:
        try:
            out = np.array([graph.node_of(p) for p in items], dtype=np.int32)
        except TypeError:
            raise NodeError(f"{what} must be a sequence of node ids or points, "
                            f"got {items!r}") from None
        return out


class _BackgroundWarmUp:
    """One graph's warm-up on a daemon thread, after the warm-ups before
    it (one at a time: they would only queue on numba's compiler lock)."""

    def __init__(self, world, graph, earlier):
        self.done = threading.Event()
        self.error: BaseException | None = None
        before = [job.done for job in earlier]

        def run():
            for ev in before:
                ev.wait()
            world._warm_thread.active = True
            try:
                world._warm_graph(graph)
            except BaseException as exc:      # handed to ready(), on the game's thread
                self.error = exc
            finally:
                self.done.set()

        threading.Thread(target=run, daemon=True,
                         name=f"navcore-warm-up-{graph.graph_id!r}").start()

    def raise_error(self) -> None:
        if self.error is not None:
            err, self.error = self.error, None
            raise err


def _own_copy(value):
    """``value`` with its numpy arrays, lists, dicts and sets copied, at
    any depth (other objects are kept: numbers, strings, geometries)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [_own_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_own_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _own_copy(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return type(value)(value)
    return value


def _raise_failed_batch(failed, applied: int):
    """The first batch that failed in a tick, raised as a ``NavError``
    once every other graph's batch is applied and observed."""
    graph_id, size, exc = failed[0]
    others = (f"; {applied} other graph(s)' batches were applied" if applied else "") + \
        (f"; {len(failed) - 1} more graph(s)' batches failed too" if len(failed) > 1 else "")
    note = f"the {size} update(s) queued for graph {graph_id!r} were dropped{others}"
    if isinstance(exc, NavError):
        exc.add_note(note)
        raise exc
    raise UpdateError(f"applying the updates of graph {graph_id!r} failed: "
                      f"{type(exc).__name__}: {exc} ({note})") from exc


def _given_points(items) -> np.ndarray | None:
    """float64 ``(k, 2)``: the ``(x, y)`` of each entry of ``items`` that
    is a pair of numbers, NaN for the others (node ids); ``None`` when no
    entry is such a pair. ``items`` already resolved through ``node_of``."""
    out = np.full((len(items), 2), np.nan)
    for i, p in enumerate(items):
        if not validate.is_int(p) and np.shape(p) == (2,):
            out[i] = np.asarray(p, dtype=np.float64)
    return None if np.isnan(out[:, 0]).all() else out


def _workers(value) -> int:
    """``World(workers=)``: an integer from 0 to ``limits.max_workers()``."""
    if not validate.is_int(value) or value < 0:
        raise FrameError(f"World: workers must be an integer >= 0 (search threads), "
                         f"got {value!r}")
    most = limits.max_workers()
    if value > most:
        raise CapacityError(f"World: workers={value} is more search threads than this "
                            f"machine can use; at most {most} ({limits.WORKERS_PER_CPU} "
                            f"per CPU, {limits.MAX_WORKERS} in all)")
    return int(value)


def _frame_number(value, what, where="tick: ") -> float:
    """A finite number ``>= 0`` of seconds or milliseconds for ``tick``, or
    ``FrameError``: a bool, a string, NaN, inf or a negative time would
    otherwise surface frames later, far from the mistake (a budget of 0
    is legal: a spent frame still serves one request every other tick)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise FrameError(f"{where}{what} must be a number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:                   # an int no float holds: 10**400
        x = math.inf
    if not math.isfinite(x) or x < 0:
        raise FrameError(f"{where}{what} must be finite and >= 0, got "
                         f"{validate.describe(value)}")
    return x


def _budget_nodes(value, what, where="") -> int:
    """A node budget: an integer >= 0, or ``FrameError``."""
    if not validate.is_int(value) or value < 0:
        raise FrameError(f"{where}{what} must be an integer >= 0 (nodes expanded per "
                         f"frame), got {value!r}")
    return int(value)


def _check_params(builder, type_name, owner, params) -> None:
    """Name unknown or missing builder parameters instead of a TypeError."""
    try:
        sig = inspect.signature(builder)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(None, None, **params)
    except TypeError as exc:
        accepted = [p.name for p in list(sig.parameters.values())[2:]
                    if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        raise GraphError(f"graph type {type_name!r} (plugin {owner!r}): {exc}; "
                         f"parameters: {', '.join(accepted)} (their meanings: "
                         f"world.graph_type_help({type_name!r}))") from None
