"""``World``: the graphs of a game, the plugins that serve them, the frame.

Queries are synchronous and dispatch through hooks (their methods are in
``queries.py``); updates are queued by ``World.update`` and applied
together by the next ``World.tick`` (the scheduler plugin's
``navcore_run_frame`` runs the frame) so no query ever sees half a batch.
"""
from __future__ import annotations

import math
import threading
import time
from collections import defaultdict

from . import builders, progress, validate, warmup
from .errors import (CrowdError, FrameError, GraphError, PluginError, QueryError, UnknownGraphError,
                     UnknownGraphTypeError, UpdateError)
from .graph import NavGraph
from .plugins import PluginRegistry
from .queries import Queries
from .types import FrameStats

#: a deterministic world's node budget per frame when none is given: about a
#: millisecond or two of grid A* on one core (JPS expands fewer, dearer nodes)
DEFAULT_FRAME_BUDGET_NODES = 20_000


class World(Queries):
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

    Path requests (``request_path``) are searched inside ``tick`` within
    its budget, a long one a slice per frame. With ``background=True``
    (and ``workers=N``) they are searched on N threads of their own across
    frames instead: ``tick`` hands new requests out and publishes those
    that finished, in request order, and never waits for a search.
    """

    def __init__(self, *, plugins=(), autoload=None, frame_budget_ms: float = 2.0,
                 workers: int = 0, seed: int | None = None, deterministic: bool = False,
                 frame_budget_nodes: int | None = None, warm_up=True, on_progress=None,
                 background: bool = False):
        # every setting checked before anything is made (threads, plugins)
        if not (type(warm_up) is bool or (type(warm_up) is str and warm_up == "background")):
            raise FrameError(f"World: warm_up must be True, False or 'background', "
                             f"got {warm_up!r}")
        frame_budget_ms = validate.frame_number(frame_budget_ms, "frame_budget_ms", "World: ")
        workers = validate.workers(workers)
        validate.progress_callback(on_progress, "World: on_progress")
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
        self._warming: dict = {}             # graph_id -> BackgroundWarmUp in flight
        self._warm_thread = threading.local()   # marks the warm-up thread's own calls
        #: serve requests by a node budget only, never by the clock (replays)
        self.deterministic = validate.boolean(deterministic, "deterministic", FrameError)
        #: path requests searched on threads of their own across frames
        self.background = validate.boolean(background, "background", FrameError)
        if self.background and (self.deterministic or not workers
                                or frame_budget_nodes is not None):
            raise FrameError(
                "World: background=True needs worker threads (workers=N > 0), a world "
                "that is not deterministic (its results come when their searches end, "
                "which depends on the machine) and no frame_budget_nodes (its searches "
                f"run outside the frames); got workers={workers}, "
                f"deterministic={self.deterministic}, frame_budget_nodes={frame_budget_nodes!r}")
        #: nodes the searches of one frame may expand (``None``: no node
        #: budget; a deterministic world then uses ``DEFAULT_FRAME_BUDGET_NODES``)
        self.frame_budget_nodes = None if frame_budget_nodes is None else \
            validate.budget_nodes(frame_budget_nodes, "frame_budget_nodes")
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
        self._checked = None          # prepare_path's last (graph, algorithm, plugins.version)
        self._post_cache = (-1, False)  # (plugins.version, any postprocessor)
        self._type_doc = (-1, "")       # (plugins.version, add_graph's help)
        self.last_stats: FrameStats | None = None
        #: set by the scheduler plugin (``navcore_world_created``)
        self.scheduler = None
        #: crowd id -> crowd (``add_crowd``), moved by every ``tick``
        self.crowds: dict = {}
        #: ``close()`` was called: queries only, no more frames or changes
        self.closed = False
        self.plugins.caller("navcore_world_created")(self)

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
        self.plugins.caller("navcore_world_closed")(self)

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
        return builders.type_help(self.plugins.graph_types(), type)

    @builders.HelpedByPlugins
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
        builders.check_params(builder, type, owner, params)
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
                self.plugins.caller("navcore_graph_built")(self, graph_id, graph)
            if self.warm_up_mode is True:
                warmup.warm_graph(self, graph)
        except BaseException:
            del self.graphs[graph_id]
            raise
        if self.warm_up_mode == "background":
            self._warming[graph_id] = warmup.BackgroundWarmUp(self, graph,
                                                              self._warming.values())
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
        return warmup.wait(self, timeout)

    def add_crowd(self, crowd_id, graph, **params):
        """Add a crowd of agents that walk graph ``graph`` (an id) and
        return it; every ``tick(dt)`` moves it by ``dt`` seconds after
        serving path requests. ``params`` (RVO2's agent defaults and
        DetourCrowd's steering) are the crowd plugin's: see its
        ``Crowd``. A used ``crowd_id``, an unknown graph or a parameter
        the crowd cannot use is a ``NavError``, and nothing is added."""
        self._check_open("add_crowd")
        try:
            known = crowd_id in self.crowds
        except TypeError:
            raise CrowdError(f"crowd id must be hashable, got {crowd_id!r}") from None
        if known:
            raise CrowdError(f"crowd id {crowd_id!r} is already in use; remove_crowd it first")
        g = self.graph(graph)
        crowd = self.plugins.caller("navcore_make_crowd")(self, crowd_id, graph, g, params)
        if crowd is None:
            raise CrowdError(f"no plugin moves crowds on {g.kind} graph {graph!r} (the crowd "
                             f"plugin needs a graph that answers navcore_walls and "
                             f"navcore_move_along_surface: grids, navmeshes and levels)")
        self.crowds[crowd_id] = crowd
        return crowd

    def crowd(self, crowd_id):
        """The crowd ``add_crowd`` added as ``crowd_id``."""
        try:
            return self.crowds[crowd_id]
        except (KeyError, TypeError):
            known = ", ".join(repr(c) for c in self.crowds) or "none"
            raise CrowdError(f"no crowd {crowd_id!r} in this world; crowds: {known}") from None

    def remove_crowd(self, crowd_id) -> None:
        """Remove a crowd; its agents' path requests are cancelled."""
        self.crowd(crowd_id).close()
        del self.crowds[crowd_id]

    def remove_graph(self, graph_id) -> None:
        """Remove a graph, its queued updates and requests, and the
        crowds that walk it."""
        graph = self.graph(graph_id)
        for crowd_id in [c for c, crowd in self.crowds.items() if crowd.graph_id == graph_id]:
            self.remove_crowd(crowd_id)
        del self.graphs[graph_id]
        self._pending.pop(graph_id, None)
        self._algo_cache.clear()        # ids of removed graphs may be reused
        self._checked = None            # nor is a removed graph kept alive
        self.plugins.caller("navcore_graph_removed")(self, graph_id, graph)

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

    def warm_up(self, graph_id=None, *, progress=None) -> float:
        """Load the kernels the plugins will run on ``graph_id`` (every
        graph by default) now, so no frame pays for it later. ``add_graph``
        does this already (unless ``World(warm_up=False)``); call it again
        after registering a plugin. The functions that build a view
        (``contract``, ``simplify``, ``landmarks``) load its kernels
        themselves before they return; this loads those of the graphs'
        current views again. ``progress``: a ``callback(done, total, name)`` for
        this call (see ``on_progress``). Returns the seconds it took."""
        return warmup.warm(self, graph_id, progress)

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
        params = {k: validate.own_copy(v) for k, v in params.items()}
        upd = self.plugins.caller("navcore_make_update", type(graph))(self, graph, params)
        if upd is None:
            raise UpdateError(f"{graph.kind} graph {graph_id!r} does not accept "
                              f"updates {sorted(params)}")
        with self._pending_lock:
            self._seq += 1
            self._pending[graph_id].append(
                type(upd)(upd.graph_id, upd.kind, upd.params, self._seq))

    def request_path(self, graph_id, start, goal, *, algorithm: str = "auto",
                     callback=None, repath: bool = False, replan_from=None,
                     max_nodes: int | None = None, partial: bool = False, **options):
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
        ``max_nodes`` and ``partial`` cap the search as ``find_path``'s
        do (``budget_exceeded``, or the ``partial`` path); such a request
        is stepped over frames like any search too long for one.
        ``options`` are ``find_path``'s query options (a level's
        ``exclude_areas=``, ...), checked now; a request with options is
        served as a stepped search (``begin_search``), not in a batch.
        """
        if self.closed:
            self._check_open("request_path")
        if self.scheduler is None:
            raise QueryError("request_path needs the scheduler plugin "
                             "(navcore_scheduler), which is not loaded")
        return self.scheduler.request_path(graph_id, start, goal, algorithm=algorithm,
                                           callback=callback, repath=repath,
                                           replan_from=replan_from, max_nodes=max_nodes,
                                           partial=partial, **options)

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
            dt = validate.frame_number(dt, "dt")         # before anything changes
        budget = self.frame_budget_ms if budget_ms is None else \
            validate.frame_number(budget_ms, "budget_ms")
        nodes = self.frame_budget_nodes if budget_nodes is None else \
            validate.budget_nodes(budget_nodes, "budget_nodes", "tick: ")
        if self._warming:
            self.ready()      # a game that skipped its loading screen waits here once
        t0 = time.perf_counter()
        self.frame += 1
        deadline = math.inf if self.deterministic else t0 + budget / 1e3
        stats = self.plugins.caller("navcore_run_frame")(
            self, self.frame, FrameStats(self.frame, dt), deadline, nodes, self._take_updates)
        if stats is None:
            raise FrameError(f"no plugin ran frame {self.frame} (navcore_run_frame: is the "
                             f"scheduler plugin loaded?)")
        return stats

    # -- internals ------------------------------------------------------------
    def _take_updates(self) -> list:
        """``[(graph_id, graph, [Update])]``: the batches queued since the
        last frame, taken out of the queue (``navcore_run_frame``)."""
        if not self._pending:
            return []
        with self._pending_lock:
            pending, self._pending = self._pending, defaultdict(list)
        return [(gid, self.graphs[gid], batch) for gid, batch in pending.items()
                if batch and gid in self.graphs]
